"""Per-turn grounding (generation/turn_context.context_for): what a follow-up's run
pays before the provider is called, in a chat whose background is half of a
200k-token window: the access and edit re-check of the packed cards, pins, then
ranking the chat's whole source again and appending its best cards. Warm (the
instance has ranked this source before: the retrieval index and BM25 statistics
cached), for sources of 1,000 and 10,000 cards with stored embeddings; the time
is the median of the warm runs, the reads those of one warm run, counted at the
client as Firestore bills them (benchmarks/op_counter.py)."""

from __future__ import annotations

import random
import statistics
import time
from functools import partial

import numpy as np

from benchmarks.common import sized
from benchmarks.decks import GIT_WORDS, DeckWriter, unit_vector, words
from benchmarks.op_counter import OpCounter
from cardchat.chat.packed_cards import packed_stamps
from cardchat.generation import turn_context
from cardchat.llm.models import MODELS
from cardchat.repo.chats import write_new_chat
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.retrieval.background import fit_background
from cardchat.schema.chat_sources import ChatSource
from cardchat.schema.documents import Card, Chat, ChatBackground, ChatPrivate
from cardchat.schema.messages import ChatMessage

OWNER = "bench-owner"
#: A 200k-token model: half its window is the background the figure is for.
SPEC = next(m for m in MODELS.values() if m.provider == "anthropic" and m.context_window >= 200_000)
BACKGROUND_SHARE = 0.5


def _seed(db, n: int) -> dict[str, Card]:
    rng = random.Random(n)
    np_rng = np.random.default_rng(n)
    deck, cards = DeckWriter(db), {}
    for i in range(n):
        card = Card(f"Card {i}", words(rng, 40, 160, GIT_WORDS[:16]) + ".", f"{OWNER}-{n}")
        cid = f"turn-{n}-{i:05d}"
        deck.card(cid, card, unit_vector(np_rng))
        cards[cid] = card
    deck.close()
    rebuild(db, f"{OWNER}-{n}")  # as after an embedded import
    return cards


def _chat(db, chat_id: str, owner: str, cards: dict[str, Card]) -> int:
    """A chat whose background holds as many of `cards` as half the window takes, stamped as
    createChat stamps them; how many it holds."""
    budget = int(SPEC.context_window * BACKGROUND_SHARE)
    bg = fit_background(list(cards.items()), budget, SPEC.tokenizer)
    private = ChatPrivate(owner, budget, bg.tokens, bg.card_ids, len(cards))
    write_new_chat(
        db,
        chat_id,
        Chat(owner=owner, title="t", model=SPEC.id),
        private,
        ChatBackground(
            chat=chat_id,
            owner=owner,
            model=SPEC.id,
            tokens=bg.tokens,
            parts=0,
            card_updated=packed_stamps(bg.card_ids, cards),
        ),
        bg.text,
        [],
        None,
        ChatSource(chat=chat_id, owner=owner, card_ids=list(cards)),
    )
    return len(bg.card_ids)


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def run(db) -> list[str]:
    lines = []
    counter = OpCounter(db)
    for n in sized((1_000, 10_000), (5,)):
        owner = f"{OWNER}-{n}"
        cards = _seed(db, n)
        chat_id = f"bench-turn-{n}"
        packed = _chat(db, chat_id, owner, cards)
        chat = Chat(owner=owner, title="t", model=SPEC.id)
        totals, reads = [], 0
        for i in range(sized(6, 2)):
            history = [
                ChatMessage(chat_id, 0, "user", "how do I rebase?", "complete"),
                ChatMessage(chat_id, 1, "assistant", "Like so [1].", "complete"),
                ChatMessage(chat_id, 2, "user", f"and how do I stash my work? take {i}", "complete"),
            ]
            step = partial(turn_context.context_for, db, chat_id, chat, history, 3, SPEC)
            if not i:  # the first run warms the caches
                step()
                continue
            if i == 1:
                with counter.counting() as ops:
                    totals.append(_timed(step))
                reads = ops.reads
            else:
                totals.append(_timed(step))
        lines.append(
            f"{n:>6,} cards, {packed:,} in the background ({BACKGROUND_SHARE:.0%} of {SPEC.id}'s window), warm: "
            f"the per-turn step (re-check, pins, rank, plan, write) median of {len(totals)} "
            f"{statistics.median(totals):,.0f} ms, {reads:,} Firestore reads"
        )
    return lines
