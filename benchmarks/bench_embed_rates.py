"""Writes per second on an owner's documents while their import is embedded.

One embedding worker (repo/embed_batches.work, embedCard's body once its card
is queued) drains an importer's queue of 2,000 cards (BENCH_EMBED_RATES_CARDS)
in this process, with the real MiniLM, against the Firestore emulator; the
collection-group listeners of benchmarks/write_rates.py count every document's
writes meanwhile. Firestore sustains about one write a second on one document:
the owner's progress, worker notice, minute counter and retrieval-index head
are each written per batch, so how fast batches come decides how hot they run.
The load benchmark (`scripts/bench load`) sees the same with the trigger path
in front; this one isolates the worker, so that a change of pace shows."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

from benchmarks.common import sized
from benchmarks.write_rates import WriteRates, over_limit
from cardchat.embeddings import get_embedder
from cardchat.repo import embed_batches
from cardchat.repo.embed_queue import enqueue_many
from cardchat.schema.documents import CARDS, Card, now


def _seed(db: Any, owner: str, n: int) -> None:
    for start in range(0, n, 500):
        batch = db.batch()
        for i in range(start, min(n, start + 500)):
            body = f"Subject {i % 11}: what was learnt about item {i}, with the details of part {i * 7 % 101}. " * 3
            batch.set(db.collection(CARDS).document(f"{owner}-{i:05d}"), Card(f"Note {i}", body, owner).to_dict())
        batch.commit()
    enqueue_many(db, {f"{owner}-{i:05d}": owner for i in range(n)}, now())


def run(db: Any) -> Iterator[str]:
    n = int(os.environ.get("BENCH_EMBED_RATES_CARDS", sized("2000", "20")))
    owner = f"rates-{uuid.uuid4().hex[:8]}"
    embedder = get_embedder()
    embedder.embed(["load the model first"])
    _seed(db, owner, n)
    rates = WriteRates(db)
    try:
        start = time.time()
        outcome = embed_batches.work(db, owner, embedder)
        took = time.time() - start
        time.sleep(1.0)
        writes = rates.writes(start, time.time())
        hot = rates.hottest(start, time.time(), 5)
    finally:
        rates.close()
    yield f"one worker, {n:,} queued cards: {outcome} in {took:.1f} s = {n / took:.1f} cards/s"
    per_owner = {k: v for k, v in writes.items() if k not in ("card_embeddings", "embedding_queue")}
    yield f"  writes by collection (vectors and queue entries aside): {dict(sorted(per_owner.items()))}"
    yield "  hottest documents (writes in the busiest 10 s / 10):"
    yield from (f"    {d.line()}" for d in hot)
    yield f"  above 1 write/s over 10 s: {len(over_limit(hot))} (load average {os.getloadavg()[0]:.1f})"
