"""The access re-check (chat/recheck.py) on a 1,000-card background: what every
answer and branch pays before it starts when nothing changed (the cards'
access fields, read in bulk), and what withdrawing one card adds (cutting
it out and counting the background's tokens again)."""

from __future__ import annotations

import random
import statistics
import time

from benchmarks.common import sized
from benchmarks.decks import GIT_WORDS, DeckWriter, words
from cardchat.chat import recheck
from cardchat.retrieval.background import fit_background
from cardchat.schema.documents import CARDS, Card

N = sized(1_000, 5)
OWNER = "bench-owner"


def _seed(db) -> list[tuple[str, Card]]:
    rng = random.Random(N)
    deck, cards = DeckWriter(db), []
    for i in range(N):
        body = words(rng, 40, 160, GIT_WORDS[:16]) + "."
        # every tenth card is someone else's, shared with the owner: the kind that can be withdrawn
        card = (
            Card(f"Card {i}", body, "bench-friend", viewers=[OWNER])
            if i % 10 == 0
            else Card(f"Card {i}", body, OWNER, visibility="public" if i % 3 == 0 else "private")
        )
        cid = f"recheck-{i:05d}"
        deck.card(cid, card)
        cards.append((cid, card))
    deck.close()
    return cards


def _median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def run(db) -> list[str]:
    cards = _seed(db)
    bg = fit_background(cards, 10_000_000, "o200k_base")
    assert len(bg.card_ids) == N

    def check():
        return recheck.check(db, OWNER, bg.card_ids, bg.text, bg.tokens, "o200k_base")

    check()  # warm: the channel, the tokenizer
    unchanged = _median_ms(check, sized(7, 1))
    db.collection(CARDS).document(cards[0][0]).update({"viewers": []})
    assert check().withdrawn == [cards[0][0]]
    withdrawn = _median_ms(check, sized(5, 1))
    return [
        f"access re-check, {N:,}-card background ({len(bg.text) / 1e6:.1f} MB, {bg.tokens:,} tokens):",
        f"    nothing changed: {unchanged:.0f} ms (reads owner/visibility/viewers of every card, no body)",
        f"    one card withdrawn: {withdrawn:.0f} ms (the same read, the card cut out, the tokens counted again)",
    ]
