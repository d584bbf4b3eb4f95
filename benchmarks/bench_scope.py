"""What a chat costs when strangers write a lot: createChat over the caller's
own cards, and over one followed owner's public cards, with 100 other owners
holding 1,000 public cards each beside the caller's 10,000; then createChat
and searchCards over "mine and shared with me" before and after a stranger
pushes 100,000 private cards at the caller (their `viewers` hold the caller,
who never accepted that stranger). Reads that differ fail the benchmark.

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
and 300 pushed ones beside 200 own cards (CI's smoke run): the figures then
mean nothing, the equal-reads check still holds. `scripts/bench scope`.
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


#: Who pushes private cards at the caller without being accepted.
PUSHER = "bench-scope-pusher"
#: The calls over "mine and shared with me", measured before and after the push.
SHARED_CALLS = ("shared_chat", "shared_search")


def sizes() -> tuple[int, int, int]:
    """(other owners, public cards each, the caller's own cards)."""
    return sized((100, 1000, 10_000), (3, 40, 200))


def pushed_size() -> int:
    """Private cards the stranger shares with the caller."""
    return sized(100_000, 300)


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
        for label, call, code in _runs(with_owner=True, calls=("default", *SHARED_CALLS))
    }
    yield from _report(alone, crowd, strangers)
    pushed = pushed_size()
    start = time.perf_counter()
    _push(db, pushed)
    took = time.perf_counter() - start
    yield f"a stranger's {pushed:,} private cards shared with the caller, unaccepted, in {took:.0f} s"
    after = {
        label: in_fresh_process("benchmarks.bench_scope", [call], db.project, code)
        for label, call, code in _runs(calls=SHARED_CALLS)
    }
    yield from _report({k: v for k, v in crowd.items() if k in after}, after, pushed, "pushed")
    different = [k for k in after if k.startswith("after") and after[k]["reads"] != crowd[k]["reads"]]
    different += [k for k in alone if k.startswith("after") and alone[k]["reads"] != crowd[k]["reads"]]
    if different:
        raise SystemExit(f"bench scope: reads DIFFERENT for {', '.join(different)}")


LABELS = {
    "default": ("default (every readable card)", "default (mine)"),
    "shared_chat": ("createChat, mine and shared", "createChat, mine and shared"),
    "shared_search": ("searchCards, mine and shared", "searchCards, mine and shared"),
}


def _runs(with_owner: bool = False, calls: tuple[str, ...] = ("default",)) -> list[tuple[str, str, Path]]:
    baseline = os.environ.get("CARDCHAT_BENCH_BASELINE")
    out = []
    for call in calls:
        if baseline:
            out.append((f"before: {LABELS[call][0]}", call, Path(baseline) / "functions"))
        out.append((f"after: {LABELS[call][1]}", call, ROOT / "functions"))
    if with_owner:
        out.append(("after: one followed owner's public cards", "owner", ROOT / "functions"))
    return out


def _push(db: Any, n: int) -> None:
    """`n` private cards of PUSHER whose viewers hold the caller: no vectors, no index (the caller
    never chose them, so nothing of theirs should be read)."""
    from cardchat.schema.documents import Card

    rng, deck = random.Random(PUSHER), DeckWriter(db)
    for i in range(n):
        deck.card(f"{PUSHER}-{i:06d}", Card(f"pushed {i}", words(rng, 20, 120), PUSHER, viewers=[ME]))
    deck.close()


def _report(alone: dict[str, Any], crowd: dict[str, Any], strangers: int, what: str = "strangers'") -> Iterator[str]:
    for label, r in crowd.items():
        goal = "goal ≤ 1000 ms" if label.startswith("after") else "no goal: what main did"
        yield (
            f"  {label} with {strangers:,} {what} cards: warm {r['warm_ms']:.0f} ms ({goal}); "
            f"cold {r['cold_ms']:.0f} ms; {r['considered']:,} cards considered; "
            f"peak RSS {r['peak_mib']:.0f} MiB (goal ≤ {FUNCTION_MIB} MiB)"
        )
        yield f"      reads of a warm call: {_reads(r['reads'])}"
    for label, r in alone.items():
        same = r["reads"] == crowd[label]["reads"]
        differs = f"DIFFERENT (goal: the same): {_reads(crowd[label]['reads'])}"
        verdict = "the same (goal: the same)" if same else differs
        yield (
            f"  {label}: reads with 0 {what} cards {_reads(r['reads'])}; with {strangers:,}: {verdict}; "
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
    from cardchat.repo import cards as card_repo
    from cardchat.repo.retrieval_index import shards

    _count_streamed()
    db = main.db()
    once = _call(db, call)
    start = time.perf_counter()
    once()
    cold_ms = (time.perf_counter() - start) * 1000
    runs = []
    for _ in range(WARM_RUNS):
        card_repo.READS.clear()
        shards.reads.heads = shards.reads.shards = 0
        STREAMED[0] = 0
        start = time.perf_counter()
        considered = once()
        runs.append((time.perf_counter() - start) * 1000)
    reads = {**asdict(shards.read_stats()), **card_repo.READS, "streamed by a query": STREAMED[0]}
    return {
        "cold_ms": cold_ms,
        "warm_ms": statistics.median(runs),
        "reads": reads,
        "considered": considered,
        "peak_mib": peak_rss_mib(),
    }


def _call(db: Any, call: str) -> Any:
    """One call of `call` as a function answering how many cards it considered."""
    from cardchat.access.ratelimit import Limits
    from cardchat.chat import card_search
    from cardchat.chat import create as chats
    from cardchat.parsing import requests
    from cardchat.schema.documents import CHAT_PRIVATE

    if call == "shared_search":
        search = requests.search_cards({"text": QUESTION, "scope": "mine_and_shared"})
        return lambda: card_search.search_cards(db, ME, search, per_minute=10**6).considered
    unlimited = Limits(per_minute=10**6, daily_tokens=10**12)
    query = {"default": {}, "owner": {"scope": "owner", "owner": owner_uid(0)}}.get(call, {"scope": "mine_and_shared"})
    data = {"query": query, "initial_message": QUESTION, "model": "claude-sonnet-4-6", "background_percentage": 0.5}
    req = requests.create_chat(data, env={"ANTHROPIC_API_KEY": "bench-only"})

    def create() -> int:
        chat_id = chats.create_chat(db, ME, req, limits=unlimited).chat_id
        return int(db.collection(CHAT_PRIVATE).document(chat_id).get().get("cards_considered"))

    return create


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1])))
