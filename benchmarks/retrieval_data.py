"""The passages and gold answers `retrieval.py` measures with, besides the data set as it
comes: distractor padding (`--pad-to`), each article chunked as one document (`--chunk`), and
every passage that holds a question's answer (precision@5)."""

from __future__ import annotations

import random
import re
from typing import Any

from zettelgraph.ingest.chunking import ChunkingConfig, chunk_document, split_sentences
from zettelgraph.ingest.parsed import Block, ParsedDocument


def padded(passages: list[dict[str, Any]], size: int, seed: int = 0) -> list[dict[str, Any]]:
    """`passages` and distractors up to `size` in all (retrieval.py's docstring says why)."""
    sentences = [
        sentence
        for row in passages
        for sentence in re.split(r"(?<=[.!?])\s+", row["text"])
        if len(sentence) > 20
    ]
    rng = random.Random(seed)
    extra = [
        {
            "passage_id": f"distractor__{i}",
            "article_title": f"Distractor {i // 20}",
            "text": " ".join(rng.sample(sentences, 3)),
        }
        for i in range(max(0, size - len(passages)))
    ]
    return passages + extra


def chunked_articles(
    passages: list[dict[str, Any]], questions: list[dict[str, Any]], config: ChunkingConfig
) -> tuple[list[dict[str, Any]], dict[str, set[str]]]:
    """Each article chunked as one document (retrieval.py's docstring): the chunks as
    passage rows, and question id -> the ids of its gold chunks."""
    by_article: dict[str, list[dict[str, Any]]] = {}
    for row in passages:
        by_article.setdefault(row["article_title"], []).append(row)
    chunks: list[dict[str, Any]] = []
    for title, rows in by_article.items():
        blocks = [Block(text=row["text"], group=title, group_title=title) for row in rows]
        document = ParsedDocument(path=title, file_type="text", blocks=blocks)
        for i, passage in enumerate(chunk_document(document, config).passages):
            chunks.append(
                {"passage_id": f"{title}__chunk{i}", "article_title": title, "text": passage.text}
            )
    text_of = {row["passage_id"]: row["text"] for row in passages}
    gold: dict[str, set[str]] = {}
    for question in questions:
        answer = question["answer_text"]
        sentences = split_sentences(text_of[question["passage_id"]])
        holding = [s for s in sentences if answer in s]
        article = question["passage_id"].rsplit("__", 1)[0]
        gold[question["question_id"]] = {
            chunk["passage_id"]
            for chunk in chunks
            if chunk["article_title"] == article
            and (
                any(s in chunk["text"] for s in holding)
                if holding
                else answer in chunk["text"] and any(s in chunk["text"] for s in sentences)
            )
        }
    return chunks, gold


def relevant_passages(
    questions: list[dict[str, Any]], passages: list[dict[str, Any]], gold: dict[str, set[str]]
) -> dict[str, set[str]]:
    """Question id -> the passage_ids relevant to it: its gold passages, and every passage
    that holds its answer text (case- and space-insensitive)."""
    texts = {row["passage_id"]: " ".join(row["text"].casefold().split()) for row in passages}
    out: dict[str, set[str]] = {}
    for row in questions:
        answer = " ".join(str(row.get("answer_text", "")).casefold().split())
        found = {pid for pid, text in texts.items() if answer and answer in text}
        out[row["question_id"]] = gold[row["question_id"]] | found
    return out
