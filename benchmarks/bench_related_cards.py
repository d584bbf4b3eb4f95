"""relatedCards server time at 1,000 and 10,000 of the reader's own cards, warm (the goal: as a
search, ≤ 500 ms warm at 10,000 cards), and the first call on the collection.

The deck is bench_create_chat's (synthetic text, stored random unit vectors), owned by the
reader; the Firestore emulator only, so no trigger runs. The open card's stored vector is the
dense query, so nothing is embedded."""

from __future__ import annotations

import statistics
import time

from benchmarks.bench_create_chat import _seed
from benchmarks.common import sized
from cardchat.chat import related_cards
from cardchat.embeddings import get_embedder
from cardchat.parsing.related_requests import related_cards as parse
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS

OWNER = "bench-owner"


def run(db) -> list[str]:
    get_embedder().embed(["warm the model"])
    lines = []
    for n in sized((1_000, 10_000), (5,)):
        for name in (CARDS, CARD_EMBEDDINGS):  # the reader's cards are this deck alone
            db.recursive_delete(db.collection(name))
        ids = _seed(db, n, f"related{n}")
        rebuild(db, OWNER)
        start = time.perf_counter()
        related_cards.related_cards(db, OWNER, parse({"card_id": ids[0]}), per_minute=10_000)
        first_ms = (time.perf_counter() - start) * 1000
        runs = []
        for card_id in ids[1 : 1 + sized(8, 1)]:
            start = time.perf_counter()
            out = related_cards.related_cards(db, OWNER, parse({"card_id": card_id}), per_minute=10_000)
            runs.append((time.perf_counter() - start) * 1000)
        lines.append(
            f"relatedCards over {n:6d} cards, warm: median {statistics.median(runs):6.0f} ms, "
            f"max {max(runs):.0f} ms ({len(out.cards)} cards; goal ≤ 500 ms at 10,000)"
        )
        lines.append(f"    first call on this collection (index, BM25 postings not cached): {first_ms:.0f} ms")
    return lines
