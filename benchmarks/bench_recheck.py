"""The access re-check (chat/recheck.py) on a 1,000-card background: what every
answer and branch pays before it starts when nothing changed (the cards'
access fields and `updated`, read in bulk), what withdrawing one card adds
(cutting it out and counting the background's tokens again), and what telling
edited cards adds (chat/edited_cards.py): nothing edited, and one card edited
(read whole, packed again under its number)."""

from __future__ import annotations

import random
import statistics
import time

from benchmarks.common import sized
from benchmarks.decks import GIT_WORDS, DeckWriter, words
from cardchat.chat import edited_cards, recheck
from cardchat.chat.packed_cards import packed_stamps
from cardchat.retrieval.background import fit_background
from cardchat.schema.documents import CARDS, Card
from cardchat.schema.documents import now as utc_now

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
    fresh, edited = _edits(db, bg, cards)
    return [
        f"access re-check, {N:,}-card background ({len(bg.text) / 1e6:.1f} MB, {bg.tokens:,} tokens):",
        f"    nothing changed: {unchanged:.0f} ms (reads owner/visibility/viewers/updated of every card, no body)",
        f"    one card withdrawn: {withdrawn:.0f} ms (the same read, the card cut out, the tokens counted again)",
        f"    and edited cards told, none edited: {fresh:.0f} ms (the same read, the stamps compared)",
        f"    and one card edited: {edited:.0f} ms (that card read whole and packed again under its number)",
    ]


def _edits(db, bg, cards: list[tuple[str, Card]]) -> tuple[float, float]:
    """The re-check with edited cards told (the engine's path), before and after one card is edited."""
    stamps = packed_stamps(bg.card_ids, dict(cards))

    def told():
        checked = recheck.check(db, OWNER, bg.card_ids, bg.text, bg.tokens, "o200k_base")
        return edited_cards.refresh(
            db, OWNER, checked.card_ids, checked.text, checked.tokens, bg.tokens, "o200k_base", checked.cards, stamps
        )

    assert told().repacked == []
    fresh = _median_ms(told, sized(7, 1))
    edited_id, card = cards[1]
    db.collection(CARDS).document(edited_id).update({"body": card.body + " An edit.", "updated": utc_now()})
    assert told().repacked == [edited_id]
    return fresh, _median_ms(told, sized(5, 1))
