"""checkDraft server time for a draft at the length limit over 1,000 and 10,000 of the caller's own
cards: the first check (the index's BM25 postings not cached, the judge's vectors not cached) and
warm ones (the same draft again: claim vectors cached, each claim still embedded and ranked).

The deck is bench_create_chat's (synthetic text, stored random unit vectors), owned by the caller;
the draft is sentences taken from its cards, so every claim has cards to judge. The Firestore
emulator only, so no trigger runs."""

from __future__ import annotations

import random
import statistics
import time

from benchmarks.bench_create_chat import _seed
from benchmarks.common import sized
from cardchat.embeddings import get_embedder
from cardchat.generation import draft_check
from cardchat.parsing.draft_requests import MAX_DRAFT_CHARS
from cardchat.parsing.draft_requests import check_draft as parse
from cardchat.repo import cards as card_repo
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS

OWNER = "bench-owner"


def _draft(db, ids: list[str], chars: int) -> str:
    """Sentences of 12 words from the deck's cards, up to `chars` characters."""
    rng = random.Random(7)
    bodies = [c.body.split() for c in card_repo.load_cards(db, rng.sample(ids, min(len(ids), 400))).values()]
    out: list[str] = []
    while True:
        words = rng.choice(bodies)
        start = rng.randrange(max(1, len(words) - 12))
        sentence = " ".join(words[start : start + 12]).capitalize() + "."
        if sum(len(s) + 1 for s in out) + len(sentence) > chars:
            return " ".join(out)
        out.append(sentence)


def run(db) -> list[str]:
    get_embedder().embed(["warm the model"])
    lines = []
    for n in sized((1_000, 10_000), (5,)):
        for name in (CARDS, CARD_EMBEDDINGS):  # the caller's cards are this deck alone
            db.recursive_delete(db.collection(name))
        ids = _seed(db, n, f"draft{n}")
        rebuild(db, OWNER)
        req = parse({"text": _draft(db, ids, sized(MAX_DRAFT_CHARS, 400))})
        start = time.perf_counter()
        out = draft_check.check_draft(db, OWNER, req, per_minute=10_000)
        first_s = time.perf_counter() - start
        runs = []
        for _ in range(sized(3, 1)):
            start = time.perf_counter()
            draft_check.check_draft(db, OWNER, req, per_minute=10_000)
            runs.append(time.perf_counter() - start)
        lines.append(
            f"checkDraft of {len(req.text):,} characters ({len(out.claims)} claims) over {n:6d} cards: "
            f"first {first_s:.1f} s, warm median {statistics.median(runs):.1f} s, max {max(runs):.1f} s"
        )
    return lines
