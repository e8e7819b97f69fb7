"""Consecutive exchanges of a chat on one topic merged into one group, with the topic's turn
range in every citation of its passages (issue 31), on a transcript read by the real reader and
vectors from the hash embedder (word overlap: the exchanges on sourdough share their words)."""

from __future__ import annotations

from pathlib import Path

from zettelgraph.ingest.chat_topics import exchange_texts, merge_topics, topic_starts
from zettelgraph.ingest.chunking import ChunkingConfig, chunk_document
from zettelgraph.ingest.transcripts import read_turns
from zettelgraph.llm.embeddings import HashEmbedder
from zettelgraph.models.locations import location_label

CHAT = """**User:** How do I start a sourdough starter with rye flour and water?

**Assistant:** Mix rye flour and water, cover the sourdough starter and feed it every day.

**User:** My sourdough starter smells of acetone, should I feed the rye flour and water more?

**Assistant:** Yes, feed the sourdough starter rye flour and water twice a day.

**User:** Which rye flour keeps a sourdough starter strong, and how much water?

**Assistant:** Whole rye flour with the same weight of water keeps a sourdough starter strong.

**User:** Different thing: which Lisbon districts are worth visiting in March?

**Assistant:** Alfama, Chiado and Belém; take tram 15 to Belém.
"""


def test_exchanges_on_one_topic_become_one_group_cited_by_their_turns(tmp_path: Path) -> None:
    document = read_turns(CHAT, tmp_path / "chat.md", markdown=True, forced=True)
    texts = exchange_texts(document.blocks)
    assert len(texts) == 4
    vectors = HashEmbedder().embed(texts)
    assert topic_starts(vectors, 0.3) == [0, 3]

    merged = merge_topics(document.blocks, vectors, 0.3)

    assert [b.group for b in merged] == ["exchange-1"] * 6 + ["exchange-4"] * 2
    assert {b.group_title for b in merged[:6]} == {"Turns 1–6"}
    assert merged[6].group_title == "Exchange 4" and "topic_turns" not in merged[6].location
    chunked = chunk_document(document.model_copy(update={"blocks": merged}), ChunkingConfig())
    assert [s.title for s in chunked.sections] == ["Turns 1–6", "Exchange 4"]
    labels = [location_label(p.location) for p in chunked.passages]
    assert labels[2] == "turn 3 (User), of turns 1–6"
    assert labels[-1] == "turn 8 (Assistant)"


def test_a_topic_is_cut_after_eight_exchanges_and_a_high_threshold_merges_nothing(
    tmp_path: Path,
) -> None:
    same = "\n\n".join(
        f"**User:** sourdough rye flour water {n}?\n\n**Assistant:** sourdough rye flour water."
        for n in range(10)
    )
    document = read_turns(same, tmp_path / "long.md", markdown=True, forced=True)
    vectors = HashEmbedder().embed(exchange_texts(document.blocks))
    assert topic_starts(vectors, 0.3) == [0, 8]
    assert topic_starts(vectors, 0.99) == list(range(10))
