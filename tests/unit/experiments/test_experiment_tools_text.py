"""Concordance, term frequency and co-occurrence on hand-written passages whose answers are
known."""

from __future__ import annotations

from experiment_corpus import Corpus

from zettelgraph.experiments.tools_text import concordance, cooccurrence, term_frequency


def test_concordance_counts_every_match_and_shows_it_as_written(corpus: Corpus) -> None:
    corpus.book(
        "Honra y vida",
        [
            "La honra es todo para el hidalgo. Sin honra no hay vida.",
            "Las honras fúnebres del rey fueron solemnes.",
            "Hablaban de HONRA y de lo honrado.",
            "Nada aquí.",
        ],
    )
    result = concordance(corpus.context("honra"), corpus.documents())
    # By stem, as search finds it: "honrado" is "honr" too.
    assert result.count == 5
    assert result.passages == 3
    matches = ["honra", "honra", "honras", "HONRA", "honrado"]
    assert [line.match for line in result.lines] == matches
    first = result.lines[0]
    assert (first.left, first.right) == ("La ", " es todo para el hidalgo. Sin honra no hay vida.")
    assert result.lines[2].location == "p. 2"
    assert result.words == 12 + 7 + 7 + 2
    assert result.per_10k == round(5 * 10_000 / 28, 2)
    assert result.summary.startswith("honra: 5 times in 3 passages of 'Honra y vida', ")
    assert len(result.citations) == 3
    assert result.citations[0].location == "p. 1"
    exact = concordance(corpus.context("honra", match="exact"), corpus.documents())
    assert [line.match for line in exact.lines] == ["honra", "honra", "HONRA"]
    assert exact.passages == 2


def test_concordance_clips_long_contexts_and_keeps_at_most_50_lines(corpus: Corpus) -> None:
    long = "palabra " * 30 + "honra " + "otra " * 30
    corpus.book("Largo", [long, "honra " * 70])
    result = concordance(corpus.context("honra"), corpus.documents())
    assert result.count == 71
    assert len(result.lines) == 50
    first = result.lines[0]
    assert first.left.startswith("…") and len(first.left) <= 62
    assert first.right.endswith("…") and len(first.right) <= 62


def test_concordance_finds_a_multi_word_term(corpus: Corpus) -> None:
    corpus.book(
        "Crónica", ["Los Reyes Católicos entraron; el rey católico habló; un rey muy católico."]
    )
    result = concordance(corpus.context("rey católico"), corpus.documents())
    assert [line.match for line in result.lines] == ["Reyes Católicos", "rey católico"]


def test_term_frequency_by_document_year_and_author(corpus: Corpus) -> None:
    corpus.book("Doña Perfecta", ["La honra de la familia.", "Otra honra más."], year=1876)
    corpus.book(
        "El Quijote", ["La honra del caballero andante."], author="Miguel de Cervantes", year=1605
    )
    corpus.book("Novelas", ["Sin la palabra."], author="Miguel de Cervantes")
    result = term_frequency(corpus.context("honra"), corpus.documents())
    rows = {(r.group_kind, r.group): r for r in result.rows}
    assert [(r.group_kind, r.group) for r in result.rows] == [
        ("document", "Doña Perfecta"),
        ("document", "El Quijote"),
        ("document", "Novelas"),
        ("year", "1605"),
        ("year", "1876"),
        ("year", "unknown"),
        ("author", "Benito Pérez Galdós"),
        ("author", "Miguel de Cervantes"),
    ]
    perfecta = rows[("document", "Doña Perfecta")]
    assert (perfecta.occurrences, perfecta.passages, perfecta.words) == (2, 2, 8)
    assert perfecta.per_10k == 2500.0
    cervantes = rows[("author", "Miguel de Cervantes")]
    assert (cervantes.occurrences, cervantes.passages, cervantes.words) == (1, 1, 8)
    assert rows[("year", "unknown")].occurrences == 0
    assert result.count == 3
    assert result.documents_without_year == 1
    assert "grouped as 'unknown'" in result.summary
    assert "highest by year: 1876" in result.summary
    assert [c.title for c in result.citations] == ["Doña Perfecta", "El Quijote"]


def test_cooccurrence_ranks_words_bound_to_the_term_by_pmi(corpus: Corpus) -> None:
    corpus.book(
        "Honra",
        [
            "La honra y la fama del hidalgo.",
            "Su fama creció con la honra de su casa.",
            "Fama y honra en la casa del conde.",
            "La casa vieja. La casa grande. La casa sola. La casa fría. La casa oscura. Casa.",
            "Hablamos de gloria y honra.",
            "El dinero llegó tarde aquel día y nadie lo supo nunca jamás en todo el pueblo "
            "entero, pero la honra quedó intacta.",
        ],
    )
    result = cooccurrence(corpus.context("honra", anchors=["fama", "dinero"]), corpus.documents())
    words = [t.term for t in result.terms]
    assert words == ["fama", "casa"]  # "gloria" is near it once only; "la", "y" are stopwords
    fama, casa = result.terms
    assert (fama.together, fama.occurrences) == (3, 3)
    assert (casa.together, casa.occurrences) == (2, 8)
    assert fama.pmi - casa.pmi == 2.0  # same windows, four times as frequent overall
    assert result.count == 5
    anchors = {a.anchor: a for a in result.anchors}
    assert (anchors["fama"].together, anchors["fama"].same_passage) == (3, 3)
    assert (anchors["dinero"].together, anchors["dinero"].same_passage) == (0, 1)
    assert "fama (PMI" in result.summary
    assert result.citations[0].text.startswith("La honra y la fama")


def test_cooccurrence_keeps_accents_in_the_words_it_shows(corpus: Corpus) -> None:
    corpus.book("Nación", ["La nación y la revolución.", "Revolución en la nación."])
    result = cooccurrence(corpus.context("nación"), corpus.documents())
    assert [t.term for t in result.terms] == ["revolución"]
