"""The retrieval index in memory at 10,000 and 100,000 cards, without
Firestore (seeding 100,000 cards into a shared emulator takes too long to be
part of every run): shard sizes, decoding (a cold instance's work), the
snapshot's arrays, one ranking, peak RSS. `scripts/bench index_memory`."""

from __future__ import annotations

import os
import random
import resource
import statistics
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from benchmarks.common import sized
from benchmarks.decks import VOCAB
from cardchat.embeddings import get_embedder
from cardchat.retrieval.index_entries import encode_shard, make_entry, unpack_shard
from cardchat.retrieval.index_snapshot import Part, from_packed, rank_pool
from cardchat.schema.documents import Card

QUESTION = "how do I rebase my branch onto main?"
#: Entries per shard: about what a rebuild aims at (repo/retrieval_index/shards.TARGET_SHARD_BYTES).
PER_SHARD = 700


def _blobs(n: int) -> list[bytes]:
    rng, vr = random.Random(n), np.random.default_rng(n)
    entries = []
    for i in range(n):
        body = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(20, 120)))
        v = vr.standard_normal(384).astype(np.float32)
        entries.append(make_entry(f"c{i:06d}", Card(f"card {i} {rng.choice(VOCAB)}", body, "o"), v / np.linalg.norm(v)))
    return [encode_shard(entries[k : k + PER_SHARD], 384) for k in range(0, n, PER_SHARD)]


def run(db: Any) -> Iterator[str]:
    qvec = get_embedder().embed_query(QUESTION)
    for n in map(int, os.environ.get("CARDCHAT_BENCH_INDEX_SIZES", sized("10000 100000", "20")).split()):
        blobs = _blobs(n)
        start = time.perf_counter()
        snap = from_packed("o", [unpack_shard(b) for b in blobs])
        decoded = time.perf_counter() - start
        part = Part(snap, np.arange(n), np.arange(n))
        times = []
        for _ in range(sized(5, 1)):
            start = time.perf_counter()
            rank_pool(QUESTION, qvec, [part], n)
            times.append((time.perf_counter() - start) * 1000)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        yield (
            f"{n:,} cards: {len(blobs)} shards, largest {max(map(len, blobs)) / 1e3:.0f} KB, "
            f"{sum(map(len, blobs)) / 1e6:.1f} MB in all; decoding {decoded:.1f} s; snapshot "
            f"{snap.nbytes() / 2**20:.0f} MiB of arrays; one ranking {statistics.median(times):.0f} ms; "
            f"peak RSS so far {peak:.0f} MiB (this process also made the entries)"
        )
