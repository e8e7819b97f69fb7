"""Hierarchical chunking: parents per group, sentence-aligned children with overlap, exact
locations."""

from __future__ import annotations

import itertools

import pytest

from zettelgraph.ingest.chunking import (
    ChunkingConfig,
    chunk_document,
    count_tokens,
    split_sentences,
)
from zettelgraph.ingest.parsed import Block, ParsedDocument
from zettelgraph.models import Quote
from zettelgraph.models.locations import location_label, merge_locations, page_label, quote_place
from zettelgraph.settings import Settings
from zettelgraph.workflows.quote_parse.documents import chunking_config


def _doc(*blocks: Block, file_type: str = "pdf") -> ParsedDocument:
    return ParsedDocument(path="x", file_type=file_type, blocks=list(blocks))  # type: ignore[arg-type]


def _sentence(i: int, words: int = 9) -> str:
    return "Frase " + " ".join(f"w{i}x{j}" for j in range(words - 1)) + "."


def test_sentences_split_at_ends_but_not_after_abbreviations_or_initials() -> None:
    text = "El Sr. Pérez llegó. J. R. Tolkien escribió mucho. ¿Qué pasó? ¡Nada! Ver p. 12 y sigue."
    assert split_sentences(text) == [
        "El Sr. Pérez llegó.",
        "J. R. Tolkien escribió mucho.",
        "¿Qué pasó?",
        "¡Nada!",
        "Ver p. 12 y sigue.",
    ]


def test_default_overlap_repeats_a_sentence_of_a_fifth_of_a_passage() -> None:
    # 45-token sentences: five fill a 256-token passage; the default overlap (20%, 51 tokens)
    # repeats the fifth at the start of the next passage, where 12.5% (32) repeated none.
    sentences = [_sentence(i, words=44) for i in range(10)]
    block = Block(text=" ".join(sentences), group="g")
    chunked = chunk_document(_doc(block), ChunkingConfig())
    texts = [p.text for p in chunked.passages]
    assert texts[0] == " ".join(sentences[0:5])
    assert texts[1].startswith(sentences[4])
    assert ChunkingConfig().overlap == chunking_config(Settings()).overlap == 51
    assert ChunkingConfig(child_tokens=100).overlap == 20


def test_passages_name_the_pictures_their_ocr_text_was_read_from() -> None:
    read = {"ocr": True, "region": [0, 0, 10, 10], "confidence": 90}
    blocks = [
        Block(text="Texto de la diapositiva.", location={"slide": 3}, group="s3"),
        Block(text="Leído del diagrama.", location={"slide": 3, "image": 1, **read}, group="s3"),
        Block(text="Leído de la foto.", location={"slide": 3, "image": 2, **read}, group="s3"),
        Block(text="Una página escaneada.", location={"page": 4, **read}, group="p4"),
        Block(text="Texto corriente.", location={"page": 5}, group="p5"),
    ]
    passages = chunk_document(_doc(*blocks, file_type="pptx"), ChunkingConfig()).passages
    assert [p.images for p in passages] == [
        ["slide 3, image 1", "slide 3, image 2"],
        ["page 4, image 1"],
        [],
    ]


def test_count_tokens_counts_words_and_punctuation() -> None:
    assert count_tokens("Hola, mundo.") == 4


def test_children_are_sentence_aligned_with_overlap_and_parent_link() -> None:
    sentences = [_sentence(i) for i in range(12)]  # 10 tokens each
    block = Block(text=" ".join(sentences), location={"page": 1}, group="p1", group_title="Page 1")
    chunked = chunk_document(_doc(block), ChunkingConfig(child_tokens=40, overlap_tokens=10))
    assert len(chunked.sections) == 1
    assert chunked.sections[0].text == block.text
    texts = [p.text for p in chunked.passages]
    # 4 sentences per child; the last sentence of each child starts the next one.
    assert texts[0] == " ".join(sentences[0:4])
    assert texts[1] == " ".join(sentences[3:7])
    assert texts[2] == " ".join(sentences[6:10])
    assert texts[3] == " ".join(sentences[9:12])
    assert all(count_tokens(t) <= 40 for t in texts)
    assert {p.section for p in chunked.passages} == {0}
    assert all(p.location == {"page": 1} for p in chunked.passages)


def test_without_overlap_every_sentence_appears_once() -> None:
    sentences = [_sentence(i) for i in range(7)]
    block = Block(text=" ".join(sentences), location={}, group="g")
    chunked = chunk_document(_doc(block), ChunkingConfig(child_tokens=30, overlap_tokens=0))
    assert " ".join(p.text for p in chunked.passages) == " ".join(sentences)


def test_prose_children_span_paragraphs_and_merge_their_lines() -> None:
    blocks = [
        Block(
            text=_sentence(1),
            location={"heading_path": ["A"], "line_start": 3, "line_end": 3},
            group="A",
            group_title="A",
        ),
        Block(
            text=_sentence(2),
            location={"heading_path": ["A"], "line_start": 5, "line_end": 6},
            group="A",
            group_title="A",
        ),
        Block(
            text=_sentence(3),
            location={"heading_path": ["B"], "line_start": 9, "line_end": 9},
            group="B",
            group_title="B",
        ),
    ]
    chunked = chunk_document(_doc(*blocks, file_type="markdown"), ChunkingConfig())
    assert [s.title for s in chunked.sections] == ["A", "B"]
    assert chunked.sections[0].location == {"heading_path": ["A"], "line_start": 3, "line_end": 6}
    assert [(p.text, p.location, p.section) for p in chunked.passages] == [
        (
            f"{_sentence(1)} {_sentence(2)}",
            {"heading_path": ["A"], "line_start": 3, "line_end": 6},
            0,
        ),
        (_sentence(3), {"heading_path": ["B"], "line_start": 9, "line_end": 9}, 1),
    ]


def test_prose_passages_never_cross_a_page() -> None:
    blocks = [
        Block(text="Primera página.", location={"page": 1}, group="ch1"),
        Block(text="Sigue en la misma.", location={"page": 1}, group="ch1"),
        Block(text="Segunda página.", location={"page": 2}, group="ch1"),
    ]
    chunked = chunk_document(_doc(*blocks), ChunkingConfig())
    assert len(chunked.sections) == 1
    assert [(p.text, p.location) for p in chunked.passages] == [
        ("Primera página. Sigue en la misma.", {"page": 1}),
        ("Segunda página.", {"page": 2}),
    ]


def test_turns_and_notes_never_share_a_passage() -> None:
    blocks = [
        Block(
            text="Pregunta uno.", location={"turn": 1, "speaker": "user"}, group="e1", kind="turn"
        ),
        Block(
            text="Respuesta uno.", location={"turn": 2, "speaker": "ai"}, group="e1", kind="turn"
        ),
    ]
    chunked = chunk_document(_doc(*blocks, file_type="transcript"), ChunkingConfig())
    assert [(p.text, p.location) for p in chunked.passages] == [
        ("Pregunta uno.", {"turn": 1, "speaker": "user", "kind": "turn"}),
        ("Respuesta uno.", {"turn": 2, "speaker": "ai", "kind": "turn"}),
    ]
    slide = [
        Block(text="Cuerpo de la diapositiva.", location={"slide": 2}, group="s2"),
        Block(text="Notas del orador.", location={"slide": 2}, group="s2", kind="notes"),
    ]
    chunked = chunk_document(_doc(*slide, file_type="pptx"), ChunkingConfig())
    assert [p.location for p in chunked.passages] == [{"slide": 2}, {"slide": 2, "kind": "notes"}]


def test_code_definitions_stay_whole_or_split_at_lines() -> None:
    small = "def f():\n    return 1"
    lines = [f"    x{i} = {i} + {i} + {i} + {i}" for i in range(60)]
    big = "def g():\n" + "\n".join(lines)
    blocks = [
        Block(
            text=small,
            location={"line_start": 1, "line_end": 2, "symbol": "f"},
            group="m",
            kind="code",
        ),
        Block(
            text=big,
            location={"line_start": 4, "line_end": 64, "symbol": "g"},
            group="m",
            kind="code",
        ),
    ]
    chunked = chunk_document(_doc(*blocks, file_type="code"), ChunkingConfig(child_tokens=64))
    assert chunked.passages[0].text == small
    rest = chunked.passages[1:]
    assert len(rest) > 1
    assert "\n".join(p.text for p in rest) == big
    assert rest[0].location["line_start"] == 4
    assert rest[-1].location["line_end"] == 64
    for before, after in itertools.pairwise(rest):
        assert after.location["line_start"] == before.location["line_end"] + 1


def test_large_groups_are_split_into_several_parents() -> None:
    blocks = [
        Block(
            text=" ".join(_sentence(i * 10 + j) for j in range(5)),
            location={"page": i + 1},
            group="all",
        )
        for i in range(6)
    ]  # 50 tokens per block
    chunked = chunk_document(_doc(*blocks), ChunkingConfig(child_tokens=50, max_parent_tokens=100))
    assert len(chunked.sections) == 3
    assert [s.location for s in chunked.sections] == [
        {"page": 1, "page_end": 2},
        {"page": 3, "page_end": 4},
        {"page": 5, "page_end": 6},
    ]


def test_a_sentence_longer_than_a_passage_is_cut_between_words() -> None:
    long = " ".join(f"palabra{i}" for i in range(100))
    chunked = chunk_document(
        _doc(Block(text=long, location={}, group="g")),
        ChunkingConfig(child_tokens=30, overlap_tokens=0),
    )
    assert all(count_tokens(p.text) <= 30 for p in chunked.passages)
    assert " ".join(p.text for p in chunked.passages) == long


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="overlap"):
        ChunkingConfig(child_tokens=32, overlap_tokens=32)


def test_location_merge_and_labels() -> None:
    merged = merge_locations([{"page": 3}, {"page": 4}])
    assert merged == {"page": 3, "page_end": 4}
    assert location_label(merged) == "pp. 3–4"
    assert location_label({"slide": 5, "kind": "notes"}) == "slide 5, speaker notes"
    assert location_label({"heading_path": ["Intro", "Setup"], "line_start": 4, "line_end": 9}) == (
        "Intro > Setup, lines 4–9"
    )
    assert (
        location_label({"turn": 3, "speaker": "assistant", "line_start": 1}) == "turn 3 (assistant)"
    )
    assert location_label({"line": 7}, page="12") == "p. 12"
    assert page_label("loc 142") == "loc 142"  # a reference that says what it is stays
    assert page_label("3-5") == "pp. 3-5"
    book = Quote(id="q", content_id="c", text="t", position=0, section="Economy", page="loc 142")
    assert quote_place(book) == "Economy, loc 142"
    passage = book.model_copy(update={"parent_id": "s", "location": {"slide": 2}, "page": None})
    assert quote_place(passage) == "slide 2"
