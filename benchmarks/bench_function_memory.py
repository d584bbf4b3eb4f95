"""A function's own peak memory at 100,000 cards.

The index benches measure in a process that also seeded and built the deck;
here the parent seeds one owner's cards and writes their retrieval index
(shards made from the entries directly: no card_embeddings, no rebuild),
then each call runs in a fresh Python process that does only what a cold
instance of that function does: import `main`, then one call (the embedder
loaded, the index read and decoded, ranked, the packed cards or hits read).
Its peak RSS (VmHWM) is what the function's memory setting must hold.
`CARDCHAT_BENCH_MEMORY_SIZES` (default "100000") picks the decks;
`CARDCHAT_BENCH_BASELINE=<dir>` also runs each call on the `functions/` of
another checkout (before/after in one run, under the same load:
`git archive <rev> functions | tar -x -C <dir>`).
Two calls rebuild the index, so the seed also stores each card's vector in
card_embeddings when one of them is asked for: `createChatNoIndex` (createChat
of an owner whose index is gone: dropped before each run, the rebuild happens
inside the call) and `rebuild` (`python -m cardchat reindex --owner`).
`CARDCHAT_BENCH_MEMORY_CALLS` picks the calls.
`scripts/bench function_memory`.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from google.cloud.firestore import FieldFilter

from benchmarks.common import ROOT, in_fresh_process, peak_rss_mib, sized
from benchmarks.decks import VOCAB, DeckWriter, unit_vector, words
from cardchat.repo.retrieval_index.shards import delete_shards, read_head, write_shards
from cardchat.retrieval.index_entries import make_entry
from cardchat.schema.documents import RETRIEVAL_INDEX, RETRIEVAL_INDEX_SHARDS, Card, now

QUESTION = "how do I rebase my branch onto main?"
#: The owner's index alone (read and decoded: a cold instance's first step), then
#: createChat's and continueChat's background (create.select_background), generateAnswer's per-turn
#: ranking (turn_context.rank_source), the Cards page's search, the MCP tool.
CALLS = ("load", "createChat", "generateAnswer", "searchCards", "mcp", "createChatNoIndex", "rebuild")
#: The calls that read card_embeddings (the others read the index alone).
REBUILDS = ("createChatNoIndex", "rebuild")


def _seed(db: Any, n: int, owner: str, vectors: bool) -> None:
    from cardchat.embeddings import get_embedder
    from cardchat.repo.retrieval_index.rebuild import shard_blobs  # here: a baseline's child imports this module too

    model = get_embedder().model_id
    rng, vr = random.Random(n), np.random.default_rng(n)
    deck, entries = DeckWriter(db), []
    for i in range(n):
        body = words(rng, 20, 120)
        card = Card(f"card {i} {rng.choice(VOCAB)}", body, owner, visibility="private")
        cid = f"{owner}-{i:06d}"
        v = unit_vector(vr)
        deck.card(cid, card, v if vectors else None, owner)
        entries.append(make_entry(cid, card, v))
    deck.close()
    blobs = shard_blobs(entries, 384)
    named = write_shards(db, owner, 1, dict(enumerate(blobs)))
    db.collection(RETRIEVAL_INDEX).document(owner).set(
        {
            "owner": owner,
            "version": 1,
            "slots": len(blobs),
            "shards": [named[s] for s in range(len(blobs))],
            "model": model,
            "dim": 384,
            "count": n,
            "updated": now(),
        }
    )


@dataclass(frozen=True)
class ColdCall:
    """What one call in a fresh process measured (sent to the parent as JSON)."""

    import_mib: float  # peak RSS after importing main
    peak_mib: float
    ms: float


def _child(call: str, owner: str) -> ColdCall:
    """In the fresh process: import main as a cold instance does, then one call."""
    os.environ.setdefault("FUNCTIONS_EMULATOR", "true")
    os.environ.setdefault("GCLOUD_PROJECT", "demo-cardchat-bench")
    import main  # from the functions directory the parent put first on PYTHONPATH

    after_import = peak_rss_mib()
    start = time.perf_counter()
    _call(main.db(), call, owner)
    return ColdCall(import_mib=after_import, peak_mib=peak_rss_mib(), ms=(time.perf_counter() - start) * 1000)


def _call(db: Any, call: str, owner: str) -> None:
    from cardchat.llm import models
    from cardchat.parsing.collection_query import CollectionQuery

    query = CollectionQuery(scope="mine")
    if call == "load":
        from cardchat.repo.retrieval_index import reader

        reader.load(db, owner)
    elif call in ("createChat", "createChatNoIndex"):
        from cardchat.chat import create

        spec = models.MODELS["claude-sonnet-4-6"]
        create.select_background(db, owner, query, QUESTION, spec, 0.5, "")
    elif call == "generateAnswer":
        from cardchat.generation import turn_context

        turn_context.rank_source(db, owner, query, "and how do I undo a stash?", QUESTION)
    elif call == "searchCards":
        from cardchat.chat import card_search
        from cardchat.parsing.requests import search_cards

        card_search.search_cards(db, owner, search_cards({"text": "rebase branch", "scope": "mine"}))
    elif call == "mcp":
        from cardchat.mcpserver import search

        search.search_cards(db, owner, QUESTION, 10)
    else:
        from cardchat.repo.retrieval_index.rebuild import rebuild

        rebuild(db, owner)


def run(db: Any) -> Iterator[str]:
    calls = os.environ.get("CARDCHAT_BENCH_MEMORY_CALLS", " ".join(CALLS)).split()
    for n in map(int, os.environ.get("CARDCHAT_BENCH_MEMORY_SIZES", sized("100000", "20")).split()):
        owner = f"bench-memory-{n}"
        start = time.perf_counter()
        _seed(db, n, owner, vectors=any(c in REBUILDS for c in calls))
        head = read_head(db, owner) or {}
        yield f"{n:,} cards seeded and indexed in {time.perf_counter() - start:.0f} s: {len(head['shards'])} shards"
        for call in calls:
            for label, code in _code_dirs():
                if call == "createChatNoIndex":
                    _drop_index(db, owner)
                r = ColdCall(**in_fresh_process("benchmarks.bench_function_memory", [call, owner], db.project, code))
                yield (
                    f"    {call}{label}, cold instance: peak RSS {r.peak_mib:.0f} MiB "
                    f"(after importing main {r.import_mib:.0f} MiB); the call took {r.ms:.0f} ms "
                    f"(load average {os.getloadavg()[0]:.1f})"
                )


def _drop_index(db: Any, owner: str) -> None:
    """The owner's head and shards deleted: the next createChat rebuilds inside its call."""
    shards = db.collection(RETRIEVAL_INDEX_SHARDS).where(filter=FieldFilter("owner", "==", owner))
    delete_shards(db, [s.id for s in shards.select(["version"]).stream()])
    db.collection(RETRIEVAL_INDEX).document(owner).delete()


def _code_dirs() -> list[tuple[str, Path]]:
    baseline = os.environ.get("CARDCHAT_BENCH_BASELINE")
    dirs = [(" (baseline)", Path(baseline) / "functions")] if baseline else []
    return [*dirs, ("", ROOT / "functions")]


if __name__ == "__main__":
    print(json.dumps(asdict(_child(sys.argv[1], sys.argv[2]))))
