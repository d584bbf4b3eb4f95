"""Per-turn retrieval (generation/turn_context.py): what a follow-up's run pays
before the provider is called to rank the chat's whole source again and
append its best cards. Warm (the instance has ranked this source before:
vectors and the BM25 index cached), for sources of 1,000 and 10,000 cards
with stored embeddings, split into its steps."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import replace
from functools import partial

import numpy as np

from benchmarks.common import sized
from benchmarks.decks import GIT_WORDS, DeckWriter, unit_vector, words
from cardchat.generation import turn_context
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.repo.chats import get_private, write_new_chat
from cardchat.retrieval.background import fit_background
from cardchat.schema.chat_sources import ChatSource
from cardchat.schema.documents import Card, Chat, ChatBackground, ChatPrivate
from cardchat.schema.messages import ChatMessage

OWNER = "bench-owner"
SPEC = MODELS[OFFLINE_MODEL_ID]


def _seed(db, n: int) -> dict[str, Card]:
    rng = random.Random(n)
    np_rng = np.random.default_rng(n)
    deck, cards = DeckWriter(db), {}
    for i in range(n):
        card = Card(f"Card {i}", words(rng, 40, 160, GIT_WORDS[:16]) + ".", OWNER)
        cid = f"turn-{n}-{i:05d}"
        deck.card(cid, card, unit_vector(np_rng))
        cards[cid] = card
    deck.close()
    return cards


def _chat(db, chat_id: str, cards: dict[str, Card]) -> str:
    bg = fit_background(list(cards.items())[:40], 1_600, SPEC.tokenizer)
    private = ChatPrivate(OWNER, 1_600, bg.tokens, bg.card_ids, len(cards))
    write_new_chat(
        db,
        chat_id,
        Chat(owner=OWNER, title="t", model=SPEC.id),
        private,
        ChatBackground(chat=chat_id, owner=OWNER, model=SPEC.id, tokens=bg.tokens, parts=0),
        bg.text,
        [],
        None,
        ChatSource(chat=chat_id, owner=OWNER, card_ids=list(cards)),
    )
    return bg.text


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def run(db) -> list[str]:
    lines = []
    history = [
        ChatMessage("c", 0, "user", "how do I rebase?", "complete"),
        ChatMessage("c", 1, "assistant", "Like so [1].", "complete"),
        ChatMessage("c", 2, "user", "and how do I stash my work?", "complete"),
    ]
    for n in sized((1_000, 10_000), (5,)):
        cards = _seed(db, n)
        chat_id = f"bench-turn-{n}"
        text = _chat(db, chat_id, cards)
        source = list(cards)
        ranks, totals = [], []
        for i in range(sized(6, 2)):
            query = f"how do I stash my work? take {i}"
            if i:  # the first run warms the caches
                ranks.append(_timed(partial(turn_context.rank_source, db, OWNER, source, query)))
            history[2] = replace(history[2], content=query)
            private = ChatPrivate.from_dict(get_private(db, chat_id) or {})
            total = _timed(partial(turn_context.ground_turn, db, chat_id, private, text, 0, history, 3, SPEC))
            if i:
                totals.append(total)
        lines.append(
            f"{n:>6,} cards, warm, median of {len(ranks)}: rank the source (read cards, vectors, embed query, rank) "
            f"{statistics.median(ranks):,.0f} ms; the whole per-turn step (+ read source, plan, write) "
            f"{statistics.median(totals):,.0f} ms"
        )
    return lines
