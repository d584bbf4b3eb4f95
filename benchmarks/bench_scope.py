"""What a chat costs when strangers write a lot: createChat over the caller's
own cards, and over one followed owner's public cards, with 100 other owners
holding 1,000 public cards each beside the caller's 10,000.

The parent seeds the emulator with admin writes (cards, their stored vectors,
the retrieval indexes written from entries directly, as bench_function_memory
does), first the caller's cards alone, then the strangers'. Each measurement
runs in a fresh Python process doing what one instance of createChat does:
import `main`, one cold createChat, then warm ones (the figure: their median),
the reads of the last warm one counted (index heads and shards, documents read
by id, and documents a query streamed) and the process's peak RSS (VmHWM),
which the function's memory setting (1 GiB) must hold.

`CARDCHAT_BENCH_BASELINE=<dir>` also runs the default createChat on the
`functions/` of another checkout (before/after in one run, under the same
load: `git archive main functions common | tar -x -C <dir>`); there the
default (`query: {}`) was every card the caller may read, strangers' public
ones included. `CARDCHAT_BENCH_TINY=1` runs it at 3 owners × 40 public cards
beside 200 own cards (CI's smoke run): the figures then mean nothing, the
equal-reads check still holds. `scripts/bench scope`.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import ROOT, in_fresh_process, peak_rss_mib, sized
from benchmarks.decks import VOCAB, DeckWriter, unit_vector, words

ME = "bench-scope-me"
QUESTION = "how do I rebase my branch onto main?"
WARM_RUNS = 3
#: createChat's memory setting (main.createChat), in MiB.
FUNCTION_MIB = 1024


def sizes() -> tuple[int, int, int]:
    """(other owners, public cards each, the caller's own cards)."""
    return sized((100, 1000, 10_000), (3, 40, 200))


def owner_uid(k: int) -> str:
    return f"bench-scope-owner-{k:03d}"


def run(db: Any) -> Iterator[str]:
    owners, each, own = sizes()
    start = time.perf_counter()
    _seed(db, ME, own, "private", index_public=False)
    yield f"the caller's {own:,} cards seeded and indexed in {time.perf_counter() - start:.0f} s"
    alone = {
        label: in_fresh_process("benchmarks.bench_scope", [call], db.project, code) for label, call, code in _runs()
    }
    start = time.perf_counter()
    for k in range(owners):
        _seed(db, owner_uid(k), each, "public", index_public=True)
    strangers = owners * each
    yield f"{owners} other owners × {each:,} public cards seeded in {time.perf_counter() - start:.0f} s"
    crowd = {
        label: in_fresh_process("benchmarks.bench_scope", [call], db.project, code)
        for label, call, code in _runs(with_owner=True)
    }
    yield from _report(alone, crowd, strangers)


def _runs(with_owner: bool = False) -> list[tuple[str, str, Path]]:
    baseline = os.environ.get("CARDCHAT_BENCH_BASELINE")
    out = [("before: default (every readable card)", "default", Path(baseline) / "functions")] if baseline else []
    out.append(("after: default (mine)", "default", ROOT / "functions"))
    if with_owner:
        out.append(("after: one followed owner's public cards", "owner", ROOT / "functions"))
    return out


def _report(alone: dict[str, Any], crowd: dict[str, Any], strangers: int) -> Iterator[str]:
    for label, r in crowd.items():
        goal = "goal ≤ 1000 ms" if label.startswith("after") else "no goal: what main did"
        yield (
            f"  {label} with {strangers:,} strangers' cards: warm {r['warm_ms']:.0f} ms ({goal}); "
            f"cold {r['cold_ms']:.0f} ms; {r['considered']:,} cards considered; "
            f"peak RSS {r['peak_mib']:.0f} MiB (goal ≤ {FUNCTION_MIB} MiB)"
        )
        yield f"      reads of a warm call: {_reads(r['reads'])}"
    for label, r in alone.items():
        same = r["reads"] == crowd[label]["reads"]
        verdict = "the same (goal: the same)" if same else "DIFFERENT (goal: the same)"
        yield (
            f"  {label}: reads with 0 strangers' cards {_reads(r['reads'])}; with {strangers:,}: {verdict}; "
            f"warm {r['warm_ms']:.0f} → {crowd[label]['warm_ms']:.0f} ms"
        )


def _reads(reads: dict[str, int]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in sorted(reads.items()) if v) + f" (total {sum(reads.values()):,})"


def _seed(db: Any, owner: str, n: int, visibility: str, index_public: bool) -> None:
    """`owner`'s `n` cards with stored vectors, and their index written from the entries
    (`index_public`: the public partition, where the code has one; else the index of all)."""
    from cardchat.embeddings import get_embedder
    from cardchat.retrieval.index_entries import make_entry
    from cardchat.schema.documents import Card

    model = get_embedder().model_id
    rng, vr = random.Random(owner), np.random.default_rng(abs(hash(owner)) % 2**32)
    deck, entries = DeckWriter(db), []
    for i in range(n):
        body = words(rng, 20, 120)
        card = Card(f"card {i} {rng.choice(VOCAB)}", body, owner, visibility=visibility)  # type: ignore[arg-type]
        cid = f"{owner}-{i:05d}"
        v = unit_vector(vr)
        deck.card(cid, card, v, owner)
        entries.append(make_entry(cid, card, v))
    deck.close()
    _write_index(db, owner, entries, model, index_public)


def _write_index(db: Any, owner: str, entries: list[Any], model: str, public: bool) -> None:
    from cardchat.repo.retrieval_index import shards
    from cardchat.repo.retrieval_index.rebuild import shard_blobs
    from cardchat.schema.documents import RETRIEVAL_INDEX, now

    key = shards.index_key(owner, public)
    blobs = shard_blobs(entries, 384)
    named = shards.write_shards(db, key, 1, dict(enumerate(blobs)))
    head = {"owner": owner, "public": public, "version": 1, "slots": len(blobs), "model": model, "dim": 384}
    head |= {"shards": [named[s] for s in range(len(blobs))], "count": len(entries), "updated": now()}
    db.collection(RETRIEVAL_INDEX).document(key).set(head)


# --- in the fresh process ------------------------------------------------------------------------

STREAMED = [0]


def _count_streamed() -> None:
    """Documents a Firestore query hands over, counted (reads by id have their own counters)."""
    from google.cloud.firestore_v1 import query as firestore_query

    plain = firestore_query.Query.stream

    def stream(self: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        for snap in plain(self, *args, **kwargs):
            STREAMED[0] += 1
            yield snap

    firestore_query.Query.stream = stream  # type: ignore[assignment,method-assign]


def _child(call: str) -> dict[str, Any]:
    os.environ.setdefault("FUNCTIONS_EMULATOR", "true")
    os.environ.setdefault("GCLOUD_PROJECT", "demo-cardchat-bench")
    import main  # from the functions directory the parent put first on PYTHONPATH
    from cardchat.access.ratelimit import Limits
    from cardchat.chat import create as chats
    from cardchat.parsing import requests
    from cardchat.repo import cards as card_repo
    from cardchat.repo.retrieval_index import shards
    from cardchat.schema.documents import CHAT_PRIVATE

    _count_streamed()
    db, unlimited = main.db(), Limits(per_minute=10**6, daily_tokens=10**12)
    query = {"scope": "owner", "owner": owner_uid(0)} if call == "owner" else {}
    data = {"query": query, "initial_message": QUESTION, "model": "claude-sonnet-4-6", "background_percentage": 0.5}
    req = requests.create_chat(data, env={"ANTHROPIC_API_KEY": "bench-only"})
    start = time.perf_counter()
    chats.create_chat(db, ME, req, limits=unlimited)
    cold_ms = (time.perf_counter() - start) * 1000
    runs = []
    for _ in range(WARM_RUNS):
        card_repo.READS.clear()
        shards.reads.heads = shards.reads.shards = 0
        STREAMED[0] = 0
        start = time.perf_counter()
        result = chats.create_chat(db, ME, req, limits=unlimited)
        runs.append((time.perf_counter() - start) * 1000)
    reads = {**asdict(shards.read_stats()), **card_repo.READS, "streamed by a query": STREAMED[0]}
    considered = db.collection(CHAT_PRIVATE).document(result.chat_id).get().get("cards_considered")
    return {
        "cold_ms": cold_ms,
        "warm_ms": statistics.median(runs),
        "reads": reads,
        "considered": int(considered),
        "peak_mib": peak_rss_mib(),
    }


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1])))
