"""A follow-up's Firestore reads do not grow with its chat's background, on the real emulator:
the access and edit re-check takes the packed cards' stamps from the owner's retrieval index
(chat/card_stamps.py), and the turn's ranking reads only the cards it may add
(generation/turn_context.py), never those already in the context nor those too large to fit. Counted
on the real client as Firestore bills them (benchmarks/op_counter.py), over a chat of 30 cards and one
of 300, each packing all of its cards, and one whose collection is larger than its background."""

from __future__ import annotations

import random

import numpy as np
import pytest
from google.cloud.firestore import FieldFilter

from benchmarks.decks import GIT_WORDS, DeckWriter, unit_vector, words
from benchmarks.op_counter import OpCounter
from cardchat.access.permissions import grant_ai
from cardchat.chat import card_texts
from cardchat.chat import create as chats
from cardchat.chat.turns import post_message
from cardchat.generation.engine import generate
from cardchat.parsing import requests
from cardchat.repo import cards as card_repo
from cardchat.repo import messages as messages_repo
from cardchat.schema.documents import CARDS, CHAT_PRIVATE, Card
from engine_support import CLAUDE, anthropic_wire
from provider_wire import anthropic_text

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire"]  # a fixture, used by name

#: What a follow-up may read whatever its chat holds (the chat's documents,
#: the turn's messages, the retrieval index's head, the cards the turn adds).
MOST_READS = 60


def _chat(db, owner: str, n: int, wire, share: float = 0.5, body: tuple[int, int] = (30, 60)) -> str:
    """A chat over `n` cards of `owner` (stored vectors) of `body` words each, a `share` of the window
    its background (half holds the whole collection of short cards), first answer given."""
    rng, np_rng = random.Random(n), np.random.default_rng(n)
    deck, ids = DeckWriter(db), []
    for i in range(n):
        cid = f"{owner}-card-{i:04d}"
        deck.card(cid, Card(f"Card {i}", words(rng, *body, GIT_WORDS) + ".", owner), unit_vector(np_rng))
        ids.append(cid)
    deck.close()
    grant_ai(db, owner)
    req = requests.create_chat(
        {"card_ids": ids, "initial_message": "how do I rebase?", "model": CLAUDE, "background_percentage": share},
        env={"ANTHROPIC_API_KEY": "k"},
    )
    chat_id = chats.create_chat(db, owner, req).chat_id
    wire.responses.append(anthropic_text("Like so [1]."))
    assert generate(db, messages_repo.chat_messages(db, chat_id)[-1][0]) == "complete"
    return chat_id


def _follow_up_reads(db, owner: str, n: int, wire, **chat) -> tuple[int, int]:
    """The reads of one follow-up's answer run in a chat of `n` cards (`chat`: _chat's options) on an
    instance that keeps no card's text, and the cards it packs."""
    chat_id = _chat(db, owner, n, wire, **chat)
    card_texts.clear()
    stub = post_message(db, owner, chat_id, "and how do I stash my work?")
    wire.responses.append(anthropic_text("Stash it [2]."))
    with OpCounter(db).counting() as ops:
        assert generate(db, stub) == "complete"
    packed = db.collection(CHAT_PRIVATE).document(chat_id).get().get("cards_packed")
    return ops.reads, packed


def test_a_follow_ups_reads_are_the_same_at_30_and_300_cards(db, anthropic_wire):
    small, small_packed = _follow_up_reads(db, "reads-small", 30, anthropic_wire)
    large, large_packed = _follow_up_reads(db, "reads-large", 300, anthropic_wire)
    assert small_packed == 30 and large_packed == 300  # the whole collection is in each background
    assert large == small <= MOST_READS, (small, large)


def test_a_follow_up_reads_no_candidate_too_large_to_fit(db, anthropic_wire):
    """A collection larger than its background, of cards each larger than what one turn may add (a
    keyed model's turn_budget): the turn sizes its candidates by their indexed length, so it reads none."""
    whole, _ = _follow_up_reads(db, "reads-whole", 30, anthropic_wire)
    large, packed = _follow_up_reads(db, "reads-long", 6, anthropic_wire, share=0.25, body=(15_000, 16_000))
    assert 0 < packed < 6  # cards outside the background: candidates for the turn
    private = db.collection(CHAT_PRIVATE).where(filter=FieldFilter("owner", "==", "reads-long")).get()[0]
    turn = private.get("context_turns")[-1]
    assert turn["added"] == [] and turn["cut"] > 0  # the candidates, none of them fitting
    assert large == whole, (whole, large)


def _cards_read(db, owner: str, chat_id: str, question: str, wire) -> int:
    """The `cards` documents one follow-up's answer run asks Firestore for."""
    stub = post_message(db, owner, chat_id, question)
    wire.responses.append(anthropic_text("Like so."))  # citing no card: its final write reads none
    before = card_repo.READS[CARDS]
    assert generate(db, stub) == "complete"
    return card_repo.READS[CARDS] - before


def test_a_warm_instance_adds_the_cards_it_kept_without_reading_them(db, anthropic_wire):
    """createChat read the cards past its background (it reads a little beyond the budget), so the
    follow-up's candidates are kept by their indexed text hash; a cold instance reads them."""
    chat_id = _chat(db, "reads-kept", 60, anthropic_wire, share=0.01)
    assert 0 < db.collection(CHAT_PRIVATE).document(chat_id).get().get("cards_packed") < 40
    assert _cards_read(db, "reads-kept", chat_id, "and how do I stash my work?", anthropic_wire) == 0
    card_texts.clear()  # a fresh instance
    assert _cards_read(db, "reads-kept", chat_id, "and how do I tag a release?", anthropic_wire) > 0
