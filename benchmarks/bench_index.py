"""The per-owner retrieval index: createChat and per-turn ranking at
10,000 and 100,000 cards, warm, before (every card read) and after (the index).

The deck is synthetic (bench_create_chat's text, stored random unit vectors)
and written straight into Firestore: this bench runs on the Firestore emulator
alone, so no embedCard trigger fires for it (on a full stack, pause them:
the emulator hub's `disableBackgroundTriggers`, as scripts/seed does). The index is built with `rebuild`.
Reads are counted in the repo layer (documents asked of Firestore), not timed.
"""

from __future__ import annotations

import os
import resource
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from benchmarks.bench_create_chat import UNLIMITED
from benchmarks.common import sized
from benchmarks.decks import seed_owner
from cardchat.chat import create as chats
from cardchat.embeddings import get_embedder
from cardchat.generation import turn_context
from cardchat.llm import models
from cardchat.parsing import requests
from cardchat.parsing.collection_query import CollectionQuery
from cardchat.repo import cards as card_repo
from cardchat.repo import embeddings as emb_repo
from cardchat.repo.retrieval_index import reader, shards
from cardchat.repo.retrieval_index.rebuild import rebuild

R = TypeVar("R")

QUESTION = "how do I rebase my branch onto main?"


def _timed(fn: Callable[[], R], runs: int = 3) -> tuple[float, R]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), out


def _reads() -> dict[str, int]:
    stats = shards.read_stats()
    return {"index heads": stats.heads, "index shards": stats.shards, **dict(card_repo.READS)}


def _reset_reads() -> None:
    card_repo.READS.clear()
    shards.reads.heads = shards.reads.shards = 0


def _before(db: Any, owner: str, ids: list[str]) -> float:
    """The path every call took before the index: read every card and vector, rank them all."""
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.retrieval import rank
    from cardchat.retrieval.dense import vector_matrix

    embedder = get_embedder()

    def call() -> None:
        cards = card_repo.load_cards(db, ids)
        pairs = [embeddable_and_hash(c.title, c.body) for c in cards.values()]
        vecs = emb_repo.load_embeddings(db, {c: h for c, (_, h) in zip(cards, pairs)}, embedder.model_id)
        matrix, has = vector_matrix(vecs, list(cards), embedder.dim)
        qvec = embedder.embed_query(QUESTION)
        rank.rank_cards(
            QUESTION, qvec, list(cards), [t for t, _ in pairs], matrix, has, text_hashes=[h for _, h in pairs]
        )

    call()
    return _timed(call)[0]


def _select(db: Any, owner: str, query: CollectionQuery) -> Callable[[], chats.Selection]:
    spec = models.MODELS["claude-sonnet-4-6"]
    return lambda: chats.select_background(db, owner, query, QUESTION, spec, 0.5, "")


def _one_deck(db: Any, n: int) -> list[str]:
    owner = f"bench-index-{n}"
    start = time.perf_counter()
    ids = seed_owner(db, n, owner)
    seeded = time.perf_counter() - start
    start = time.perf_counter()
    rebuild(db, owner)
    built = time.perf_counter() - start
    head = shards.read_head(db, owner) or {}
    lines = [
        f"{n:,} cards: seeded in {seeded:.0f} s; rebuild {built:.1f} s → "
        f"{len(head.get('shards', []))} shards, version {head.get('version')}"
    ]
    if n <= 20_000:
        lines.append(f"    before (read every card and vector, rank all), warm: {_before(db, owner, ids):.0f} ms")
    reader.clear_cache()
    _reset_reads()
    cold_ms, _ = _timed(_select(db, owner, CollectionQuery(scope="mine")), runs=1)
    lines.append(f"    after, first call (index read and decoded): {cold_ms:.0f} ms, reads {_reads()}")
    _reset_reads()
    warm_ms, chosen = _timed(_select(db, owner, CollectionQuery(scope="mine")))
    per_call = {k: v // 3 for k, v in _reads().items()}
    lines.append(
        f"    after, warm, query 'all my cards' (resolve, rank, read packed, fit): {warm_ms:.0f} ms "
        f"(goal ≤ {1000 if n <= 10_000 else 2000} ms); reads per call {per_call}; "
        f"{len(chosen.background.card_ids)} cards packed"
    )
    if n <= 20_000:
        req = requests.create_chat(
            {"card_ids": ids, "initial_message": QUESTION, "model": "claude-sonnet-4-6", "background_percentage": 0.5},
            env={"ANTHROPIC_API_KEY": "bench-only"},
        )
        chats.create_chat(db, owner, req, limits=UNLIMITED)
        ms, result = _timed(lambda: chats.create_chat(db, owner, req, limits=UNLIMITED))
        split = " · ".join(f"{step} {ms:.0f}" for step, ms in result.timings.as_dict().items())
        lines.append(f"    after, warm createChat with {n:,} ids (whole call, write included): {ms:.0f} ms ({split})")
        turn_ms, _ = _timed(lambda: turn_context.rank_source(db, owner, ids, "and how do I undo a stash?", QUESTION))
        lines.append(
            f"    per-turn ranking (rank_source, two queries, reads the best cards): {turn_ms:.0f} ms (goal ≤ 150)"
        )
    loaded = reader.load(db, owner)
    if loaded is not None:
        lines.append(f"    index in memory: {loaded[1].nbytes() / 2**20:.0f} MiB of arrays")
    return lines


def run(db: Any) -> Iterator[str]:
    """CARDCHAT_BENCH_INDEX_SIZES (default "10000 100000") picks the decks: seeding
    100,000 cards into a loaded shared emulator takes many minutes."""
    get_embedder().embed(["warm the model"])
    for n in map(int, os.environ.get("CARDCHAT_BENCH_INDEX_SIZES", sized("10000 100000", "20")).split()):
        yield from _one_deck(db, n)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        yield f"    peak RSS of the bench process so far: {peak:.0f} MiB (createChat is given 1 GiB)"
