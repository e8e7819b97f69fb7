"""Consecutive exchanges of a chat transcript on one topic, merged into one group.

A transcript's turns are first grouped into exchanges (a user turn and the replies after it,
`transcripts.exchanges`). A conversation often spends several exchanges on one thing (a
question, a follow-up, "and what about..."), and each exchange alone is a thin parent section
for its passages. Here each exchange is embedded, and the next one joins the current topic
while its cosine similarity to the topic (the normalised sum of its exchanges' vectors) is
at least `threshold` (calibrated in docs/design.md), up to `MAX_EXCHANGES` per topic so a
parent section stays a readable size. A merged group is titled and located by its turns
("Turns 3–8"), and every block in it carries `topic_turns` ([first, last]) for citations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from zettelgraph.ingest.parsed import Block

EXCHANGE_PREFIX = "exchange-"
# A topic longer than this is split even when its exchanges stay similar: its section is
# shown whole as context (and to the model), and 8 exchanges is already several pages.
MAX_EXCHANGES = 8


def exchange_texts(blocks: Sequence[Block]) -> list[str]:
    """The text of each exchange, in order (the turns' texts joined), for embedding."""
    texts: dict[str, list[str]] = {}
    for block in blocks:
        if block.group and block.group.startswith(EXCHANGE_PREFIX):
            texts.setdefault(block.group, []).append(block.text)
    return ["\n".join(parts) for parts in texts.values()]


def topic_starts(vectors: NDArray[np.float32], threshold: float) -> list[int]:
    """The index of the first exchange of each topic, given one vector per exchange."""
    starts: list[int] = []
    centroid: NDArray[np.float32] | None = None
    size = 0
    for index, vector in enumerate(np.asarray(vectors, dtype=np.float32)):
        unit = vector / (float(np.linalg.norm(vector)) or 1.0)
        if centroid is not None and size < MAX_EXCHANGES:
            similarity = float(centroid @ unit) / (float(np.linalg.norm(centroid)) or 1.0)
            if similarity >= threshold:
                centroid, size = centroid + unit, size + 1
                continue
        starts.append(index)
        centroid, size = unit.copy(), 1
    return starts


def merge_topics(
    blocks: Sequence[Block], vectors: NDArray[np.float32], threshold: float
) -> list[Block]:
    """`blocks` with the exchanges of one topic in one group (`topic_starts`); `vectors` has
    one row per exchange, in order (`exchange_texts`). Blocks outside exchanges (a preamble)
    are kept as they are."""
    order = list(dict.fromkeys(b.group for b in blocks if b.group.startswith(EXCHANGE_PREFIX)))
    if len(order) != len(vectors):
        raise ValueError(f"{len(order)} exchanges but {len(vectors)} vectors")
    starts = topic_starts(vectors, threshold)
    topic_of: dict[str, int] = {}
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(order)
        topic_of.update(dict.fromkeys(order[start:end], number))
    turns: dict[int, list[int]] = {}
    for block in blocks:
        if block.group in topic_of:
            turns.setdefault(topic_of[block.group], []).append(int(block.location["turn"]))
    merged: list[Block] = []
    for block in blocks:
        topic = topic_of.get(block.group)
        members = [g for g, t in topic_of.items() if t == topic] if topic is not None else []
        if topic is None or len(members) < 2:
            merged.append(block)
            continue
        first, last = min(turns[topic]), max(turns[topic])
        merged.append(
            block.model_copy(
                update={
                    "group": members[0],
                    "group_title": f"Turns {first}–{last}",
                    "location": {**block.location, "topic_turns": [first, last]},
                }
            )
        )
    return merged
