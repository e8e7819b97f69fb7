"""Calibrate the similarity at which consecutive exchanges of a chat transcript share a topic
(`ingest/chat_topics.py`): on a few real-looking conversations whose topics are marked by hand
(`chat_topics/transcripts.json`: each exchange's topic number, the user's turn and the reply),
every exchange is embedded as the ingest embeds it and grouped at each threshold; a
threshold is scored by how many of the decisions "this exchange continues the topic" it gets
right (joined when it should be, split when it should be), over all transcripts.

    python benchmarks/chat_topics.py --embeddings use-multilingual
    python benchmarks/chat_topics.py --embeddings e5-small --grid 0.80:0.90:0.01


Prints JSON: per threshold, the decisions right, wrong joins and wrong splits.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from zettelgraph.ingest.chat_topics import topic_starts
from zettelgraph.llm.embeddings import build_embedder
from zettelgraph.settings import default_embeddings

DATA = Path(__file__).parent / "chat_topics" / "transcripts.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embeddings", default=default_embeddings())
    parser.add_argument(
        "--grid",
        default="0.10:0.90:0.05",
        help="START:STOP:STEP of the thresholds tried (e5's cosines sit near 1: 0.80:0.90:0.01)",
    )
    args = parser.parse_args()
    start, stop, step = (float(part) for part in args.grid.split(":"))
    embedder = build_embedder(args.embeddings)
    transcripts = json.loads(DATA.read_text(encoding="utf-8"))
    embedded = [
        (
            [topic for topic, _, _ in t["exchanges"]],
            embedder.embed([f"{user}\n{reply}" for _, user, reply in t["exchanges"]]),
        )
        for t in transcripts
    ]
    rows = []
    for threshold in np.round(np.arange(start, stop + step / 2, step), 3):
        right = joins = splits = total = 0
        for topics, vectors in embedded:
            starts = set(topic_starts(vectors, float(threshold)))
            for index in range(1, len(topics)):
                same, joined = topics[index] == topics[index - 1], index not in starts
                total += 1
                right += same == joined
                joins += joined and not same
                splits += same and not joined
        rows.append(
            {
                "threshold": float(threshold),
                "right": right,
                "of": total,
                "wrong_joins": joins,
                "wrong_splits": splits,
            }
        )
    print(
        json.dumps(
            {"embeddings": args.embeddings, "transcripts": len(transcripts), "thresholds": rows},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
