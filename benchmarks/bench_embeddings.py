"""Embedding, loading, ranking and fitting figures on this machine.

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 functions/venv/bin/python -m benchmarks.bench_embeddings

Writes its synthetic data into the emulator under ids prefixed `bench-`
(card_embeddings/bench-*, and bench_vector_embeddings/bench-* for the
Firestore Vector comparison). Each figure is the median of a few runs.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.common import sized
from cardchat.embeddings import get_embedder, pack
from cardchat.embeddings.base import normalise
from cardchat.llm.tokens import count_tokens
from cardchat.repo import embeddings as repo
from cardchat.retrieval.background import fit_background
from cardchat.retrieval.dense import rank_dense
from cardchat.schema.documents import CARD_EMBEDDINGS, Card, CardEmbedding

VECTOR_COLLECTION = "bench_vector_embeddings"
MODEL = "all-MiniLM-L6-v2-int8"
DIM = 384
N_CARDS = sized(10_000, 40)
N_VECTOR_TYPE = sized(1_000, 10)  # the Vector-field comparison: the gap is plain at this size

_TOPICS = {
    "caching": [
        "cache",
        "eviction",
        "LRU",
        "TTL",
        "invalidation",
        "Firestore",
        "reads",
        "hot",
        "keys",
        "warm",
        "instance",
        "memory",
    ],
    "cooking": ["sourdough", "starter", "hydration", "oven", "loaf", "crumb", "crust", "flour", "proof", "knead"],
    "finance": ["budget", "invoice", "quarterly", "revenue", "forecast", "expenses", "tax", "ledger", "margin"],
    "travel": ["itinerary", "flight", "train", "hotel", "Lisbon", "Kyoto", "visa", "luggage", "museum"],
    "ml": ["embedding", "vector", "cosine", "retrieval", "ranking", "transformer", "tokens", "context", "window"],
}
_GLUE = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "for",
    "with",
    "on",
    "is",
    "we",
    "it",
    "that",
    "this",
    "when",
    "after",
    "before",
    "because",
]


def _sentence(rng: random.Random, topic: str) -> str:
    words = [rng.choice(_TOPICS[topic] if rng.random() < 0.4 else _GLUE) for _ in range(rng.randint(6, 18))]
    return " ".join(words).capitalize() + "."


def synthetic_cards(n: int, seed: int = 1) -> list[tuple[str, Card]]:
    rng = random.Random(seed)
    cards = []
    for i in range(n):
        topic = rng.choice(list(_TOPICS))
        paragraphs = [
            " ".join(_sentence(rng, topic) for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 4))
        ]
        if i % 7 == 0:
            paragraphs.append("```python\ndef load(key):\n    return cache.get(key) or fetch(key)\n```")
        title = f"{topic.title()} note {i}: {rng.choice(_TOPICS[topic])}"
        cards.append((f"bench-{i:05d}", Card(title=title, body="\n\n".join(paragraphs), owner="bench")))
    return cards


def _median(fn: Callable[[], Any], runs: int = 3, before: Callable[[], Any] | None = None) -> float:
    times = []
    for _ in range(sized(runs, 1)):
        if before:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _written(db: Any, ids: list[str]) -> bool:
    """The data of an earlier run is there (vectors are seeded, so identical)."""
    return (
        db.collection(CARD_EMBEDDINGS).document(ids[-1]).get().exists
        and db.collection(VECTOR_COLLECTION).document(ids[N_VECTOR_TYPE - 1]).get().exists
    )


def _write(db: Any, ids: list[str], vectors: np.ndarray) -> None:
    from google.cloud.firestore_v1.vector import Vector

    writer = db.bulk_writer()
    for k, (card_id, vec) in enumerate(zip(ids, vectors)):
        doc = CardEmbedding(model=MODEL, dim=DIM, vector=pack(vec), text_hash=f"h-{card_id}")
        writer.set(db.collection(CARD_EMBEDDINGS).document(card_id), doc.to_dict())
        if k < N_VECTOR_TYPE:
            alt = doc.to_dict() | {"vector": Vector(vec.astype(float).tolist())}
            writer.set(db.collection(VECTOR_COLLECTION).document(card_id), alt)
    writer.close()


def _load_vector_type(db: Any, ids: list[str]) -> dict[str, np.ndarray]:
    from cardchat.repo.cards import read_many

    def convert(_id: str, data: dict[str, Any]) -> np.ndarray:
        return np.asarray(list(data["vector"]), dtype=np.float32)

    return dict(read_many(db, VECTOR_COLLECTION, ids, convert, field_paths=["model", "dim", "vector", "text_hash"]))


def run(db: Any) -> list[str]:
    lines: list[str] = [f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"]
    cards = synthetic_cards(N_CARDS)
    embedder = get_embedder("minilm")
    lines.append(_embed_throughput(embedder, cards))
    rng = np.random.default_rng(0)
    vectors = normalise(rng.normal(size=(N_CARDS, DIM)))
    lines += _loading(db, [card_id for card_id, _ in cards], vectors)
    lines.append(_hashing(cards))
    lines += _ranking_and_fitting(embedder, cards, vectors)
    return lines


def _embed_throughput(embedder: Any, cards: list[tuple[str, Card]]) -> str:
    """(a) MiniLM throughput."""
    from cardchat.embeddings.text import embeddable_text

    texts = [embeddable_text(c.title, c.body) for _, c in cards[:256]]
    pieces = [len(t.split()) for t in texts]
    embedder.embed(texts[:16])  # load the session
    cpu_start = time.process_time()
    t = _median(lambda: embedder.embed(texts), runs=3)
    cpu = (time.process_time() - cpu_start) / 3
    return (
        f"MiniLM int8 embed: {len(texts) / t:,.0f} texts/s ({len(texts)} card texts, "
        f"median {statistics.median(pieces)} words,"
        f" {t * 1000:,.0f} ms wall and {cpu:,.1f} s CPU (both threads) per batch of {len(texts)})"
    )


def _loading(db: Any, ids: list[str], vectors: np.ndarray) -> list[str]:
    """(b) loading stored embeddings, as bytes and as a Firestore Vector field."""
    lines: list[str] = []
    if not _written(db, ids):
        start = time.perf_counter()
        _write(db, ids, vectors)
        lines.append(
            f"(setup: wrote {N_CARDS + N_VECTOR_TYPE:,} embedding docs in {time.perf_counter() - start:.1f} s)"
        )
    for n in sized((1_000, 10_000), (N_CARDS,)):
        wanted = {card_id: f"h-{card_id}" for card_id in ids[:n]}
        assert len(repo.load_embeddings(db, wanted, MODEL)) == n
        cold = _median(lambda wanted=wanted: repo.load_embeddings(db, wanted, MODEL), before=repo.clear_cache)
        warm = _median(lambda wanted=wanted: repo.load_embeddings(db, wanted, MODEL), runs=5)
        line = f"load {n:>6,} embeddings: cold {cold * 1000:,.0f} ms (bytes field), warm {warm * 1000:,.1f} ms (cache)"
        if n <= N_VECTOR_TYPE:
            alt = _median(lambda n=n: _load_vector_type(db, ids[:n]))
            line += f"; as a Firestore Vector field, cold {alt * 1000:,.0f} ms"
        lines.append(line)
    loaded = _load_vector_type(db, ids[:10])
    assert all(np.allclose(loaded[i], vectors[k], atol=1e-6) for k, i in enumerate(ids[:10]))
    return lines


def _hashing(cards: list[tuple[str, Card]]) -> str:
    """(c) hashing 10,000 cards, cold."""
    from cardchat.embeddings.text import embeddable_and_hash

    embeddable_and_hash.cache_clear()
    start, cpu_start = time.perf_counter(), time.process_time()
    for _, c in cards:
        embeddable_and_hash(c.title, c.body)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    chars = sum(len(c.body) for _, c in cards) // N_CARDS
    return (
        f"text_hash of {N_CARDS:,} cards (cold, ~{chars} chars each): "
        f"{wall * 1000:,.0f} ms wall, {cpu * 1000:,.0f} ms CPU"
    )


def _ranking_and_fitting(embedder: Any, cards: list[tuple[str, Card]], vectors: np.ndarray) -> list[str]:
    """(c) ranking and fitting 10,000 cards, tokenizer warm."""
    lines: list[str] = []
    query = embedder.embed_query("how should we invalidate the cache after a write?")
    order_holder: dict[str, np.ndarray] = {}
    t_rank = _median(lambda: order_holder.__setitem__("o", rank_dense(query, vectors)), runs=5)
    ranked = [cards[i] for i in order_holder["o"]]
    for tokenizer in ("o200k_base", "estimate-claude"):
        count_tokens(["warm"], tokenizer)
        for budget in (100_000, 16_000):
            result: dict[str, Any] = {}
            t_fit = _median(
                lambda r=result, b=budget, t=tokenizer: r.__setitem__("bg", fit_background(ranked, b, t)), runs=5
            )
            bg = result["bg"]
            lines.append(
                f"rank_dense {N_CARDS:,} x {DIM}: {t_rank * 1000:.1f} ms; fit_background {budget:,} {tokenizer}:"
                f" {t_fit * 1000:.0f} ms ({len(bg.card_ids)} cards, fill {bg.fill:.3f})"
            )
    return lines


if __name__ == "__main__":
    from benchmarks.common import run_against_emulator

    run_against_emulator(run)
