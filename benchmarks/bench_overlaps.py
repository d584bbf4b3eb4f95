"""findOverlaps server time at 1,000 and 10,000 of the caller's own cards (the goal: ≤ 10 s at
10,000), first call and warm, with the pairs found, the pairs compared and the cards read.

The deck is synthetic text with stored vectors (benchmarks.decks), built so that every card has
work to give: of each ten cards, one is a copy of the card before it with one number changed (a
possible conflict), one a copy word for word (a duplicate), and one a near neighbour by its
vector whose text is unrelated (a pair compared and dropped). The Firestore emulator only, so no
trigger runs; the index is rebuilt once before the calls."""

from __future__ import annotations

import random
import statistics
import time

import numpy as np

from benchmarks.common import sized
from benchmarks.decks import DeckWriter, unit_vector, words
from cardchat.chat import overlaps
from cardchat.embeddings import get_embedder
from cardchat.parsing.overlap_requests import OVERLAPS_LIMIT_MAX
from cardchat.parsing.overlap_requests import find_overlaps as parse
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card

OWNER = "bench-owner"
#: Words of the cards near by vector only: none in common with the deck's, so their pairs are dropped.
OTHER_WORDS = [f"term{k}" for k in range(5_000)]


def _near(vec: np.ndarray, rng: np.random.Generator, noise: float) -> np.ndarray:
    out = vec + noise * unit_vector(rng)
    return (out / np.linalg.norm(out)).astype(np.float32)


def _seed(db, n: int) -> None:
    rng, vec_rng = random.Random(n), np.random.default_rng(n)
    deck = DeckWriter(db)
    body, vec = "", unit_vector(vec_rng)
    for i in range(n):
        kind = i % 10
        if kind == 7:  # a copy with one number changed
            body, vec = body.replace(f" {i - 1} ", f" {i + 1} ", 1), _near(vec, vec_rng, 0.2)
        elif kind == 8:  # the same text again
            vec = _near(vec, vec_rng, 0.05)
        elif kind == 9:  # near by its vector, its text another
            body, vec = f"{words(rng, 40, 120, OTHER_WORDS)}.", _near(vec, vec_rng, 0.3)
        else:
            body, vec = f"{words(rng, 20, 60)} {i} {words(rng, 20, 60)}.", unit_vector(vec_rng)
        deck.card(f"ov{n}-{i:05d}", Card(f"Card {i % 10}", body, OWNER), vec)
    deck.close()


def run(db) -> list[str]:
    get_embedder().embed(["warm the model"])
    lines = []
    for n in sized((1_000, 10_000), (20,)):
        for name in (CARDS, CARD_EMBEDDINGS):  # the caller's cards are this deck alone
            db.recursive_delete(db.collection(name))
        _seed(db, n)
        rebuild(db, OWNER)
        for limit in (50, OVERLAPS_LIMIT_MAX):
            runs = []
            for _ in range(sized(3, 1)):
                start = time.perf_counter()
                out = overlaps.find_overlaps(db, OWNER, parse({"limit": limit}), per_minute=10_000)
                runs.append((time.perf_counter() - start) * 1000)
            kinds = {k: sum(p["kind"] == k for p in out.pairs) for k in ("duplicate", "may_conflict")}
            lines.append(
                f"findOverlaps over {n:6d} cards, limit {limit:3d}: first {runs[0]:6.0f} ms, "
                f"warm median {statistics.median(runs[1:] or runs):6.0f} ms; {len(out.pairs)} pairs {kinds}, "
                f"{out.compared} compared, {out.read} cards read (goal ≤ 10 s at 10,000)"
            )
    return lines
