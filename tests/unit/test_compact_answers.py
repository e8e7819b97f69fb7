"""What a small model is asked for (`ZETTELGRAPH_COMPACT_ANSWERS`): a title and a concept, the
title with a quote's key words; no analysis, and no short summaries, which are cut from what it
wrote instead."""

from __future__ import annotations

from zettelgraph.prompts import author_bio, book_summary, extract_concepts, repair_concept
from zettelgraph.text.keywords import key_words
from zettelgraph.text.summaries import short_summary

BOOK = [
    "Ayer todo era inquina contra el ogro de Córcega, todo insultarle y ponerle por esos "
    "suelos; hoy todas son blanduras.",
    "Pues la patria es una segunda religión, y antes que faltar a su ley, el hombre debe morir.",
    "¿Ignoras lo que es la honra de la patria, que vale más que la propia honra?",
    "En 1808 el pueblo de Madrid se levantó contra los franceses.",
]


def test_key_words_are_the_quotes_own_content_words_in_its_order() -> None:
    words = key_words(BOOK)
    assert words[0][:3] == ["inquina", "Córcega", "insultarle"]
    assert words[0][-1] == "blanduras"
    for text, found in zip(BOOK, words, strict=True):
        assert all(word in text for word in found)  # as written there, case and accents kept
        positions = [text.index(word) for word in found]
        assert positions == sorted(positions)
    # No function words, no numbers, nothing shorter than five letters.
    assert all(len(w) >= 5 and not w.isdigit() for found in words for w in found)
    assert "contra" not in words[0] and "todas" not in words[0]


def test_key_words_prefer_what_sets_a_quote_apart_and_keep_one_form_per_stem() -> None:
    # "patria" is in two quotes, "honra" twice in one: with room for two words, the patria
    # quote keeps its own words, and "honra" is named once.
    two = key_words(BOOK, limit=2)
    assert "patria" not in two[1]
    assert two[2].count("honra") <= 1
    assert key_words(["Our life is frittered away by detail."]) == [["frittered", "detail"]]
    assert key_words(["Sí, no, yo."]) == [[]]
    # A quote in another language than the graph's gets none.
    spanish, english = key_words([BOOK[0], "Our life is frittered away by detail."], 5, "es")
    assert spanish and english == []


def test_short_summary_is_the_first_sentence_within_thirty_words() -> None:
    assert short_summary("La vida se pierde en detalles.  Hay que simplificar.") == (
        "La vida se pierde en detalles."
    )
    long = " ".join(["palabra"] * 45) + "."
    assert len(short_summary(long).split()) == 30
    assert short_summary("Sin punto final") == "Sin punto final"


def test_a_compact_extraction_shows_key_words_and_asks_only_title_and_concept() -> None:
    quote = extract_concepts.PromptQuote(id="q1", text=BOOK[0], key_words=["inquina", "ogro"])
    data = extract_concepts.ExtractConceptsInput(
        title="Napoleón en Chamartín", author=None, quotes=[quote], compact=True
    )
    system, human = (str(m.content) for m in extract_concepts.messages(data))
    assert "Palabras clave: inquina, ogro" in human
    assert "Palabras clave: esperar, crecer, huerto" in system  # the worked example's
    assert "summary_short" not in system + human and "analysis" not in system + human
    # One quote a call: the model writes no quote ids either, and the example shows one quote.
    assert "source_quote_ids" not in system and "[q2]" not in system
    schema = extract_concepts.response_model(data).model_json_schema()
    assert set(schema["$defs"]["OneQuoteConcept"]["properties"]) == {"title", "concept"}
    # Two quotes a call: ids again, still no short summary.
    two = data.model_copy(update={"quotes": [quote, quote.model_copy(update={"id": "q2"})]})
    system = str(extract_concepts.messages(two)[0].content)
    assert "source_quote_ids" in system and "summary_short" not in system
    schema = extract_concepts.response_model(two).model_json_schema()
    assert "source_quote_ids" in str(schema) and "summary_short" not in str(schema)
    # A full-size model reads no key words and writes its own short summary.
    full = data.model_copy(update={"compact": False})
    system, human = (str(m.content) for m in extract_concepts.messages(full))
    assert "Palabras clave" not in system + human
    assert "summary_short" in human and "analysis" in human


def test_a_compact_rewrite_from_the_quotes_shows_their_key_words() -> None:
    data = repair_concept.RepairInput(
        title="Cambio de opinión",
        concept="La gente cambia de opinión.",
        analysis="",
        summary_short="",
        quotes=[BOOK[0]],
        off_topic=True,
        compact=True,
        key_words=["inquina", "blanduras"],
    )
    system, human = (str(m.content) for m in repair_concept.messages(data))
    assert "Palabras clave: inquina, blanduras" in human
    assert "una o dos de sus palabras clave" in human
    assert "Cambio de opinión" not in human  # written afresh from the quotes alone
    assert "summary_short" not in system + human and "analysis" not in system + human
    assert set(repair_concept.response_model(data).model_fields) == {"title", "concept"}
    # The fix of a concept's fields shows them without the short summary too.
    fix = data.model_copy(update={"off_topic": False, "wrong_language": ["title", "analysis"]})
    system, human = (str(m.content) for m in repair_concept.messages(fix))
    assert "summary_short" not in system + human and "analysis" not in system + human
    assert "Cambio de opinión" in human


def test_compact_book_and_author_calls_ask_no_short_summary() -> None:
    book = book_summary.BookSummaryInput(title="T", author="A", notes="n", compact=True)
    assert "summary_short" not in str(book_summary.messages(book)[-1].content)
    assert "summary_short" not in book_summary.response_model(True).model_fields
    assert "summary_short" in book_summary.response_model(False).model_fields
    # A small model reads the first few thousand characters of long notes.
    long = book.model_copy(update={"notes": "x" * 20_000})
    assert len(str(book_summary.messages(long)[-1].content)) < 5_000
    full = long.model_copy(update={"compact": False})
    assert len(str(book_summary.messages(full)[-1].content)) > 12_000
    bio = author_bio.AuthorBioInput(name="A", title="T", compact=True)
    assert "summary_short" not in str(author_bio.messages(bio)[-1].content)
    for sourced in (False, True):
        assert "summary_short" not in author_bio.response_model(True, sourced).model_fields
        assert "summary_short" in author_bio.response_model(False, sourced).model_fields
    assert "cited_sources" in author_bio.response_model(True, True).model_fields


def test_a_compact_relation_answer_is_one_relation_without_notes() -> None:
    from zettelgraph.packs.relations import DEFAULT_VOCABULARY
    from zettelgraph.prompts import create_relations

    compact = create_relations.response_model(DEFAULT_VOCABULARY, compact=True)
    full = create_relations.response_model(DEFAULT_VOCABULARY)
    assert compact.model_json_schema()["properties"]["relations"]["maxItems"] == 1
    assert full.model_json_schema()["properties"]["relations"]["maxItems"] == 5
    # No model is asked for relation notes: each relation's explanation says why (issue 31).
    for model in (compact, full):
        assert list(model.model_fields) == ["relations"]
        assert "relation_notes" not in str(model.model_json_schema())
    # Both still narrow the relation types to the vocabulary's.
    assert "SUPPORTS" in str(compact.model_json_schema())
