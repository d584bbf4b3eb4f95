"""A card whose title the question names verbatim is in the background first (chat/named_cards.py):
at createChat, however the rankers score it, and in a follow-up's per-turn retrieval."""

from __future__ import annotations

import pytest

from cardchat.access.permissions import grant_ai
from cardchat.chat import create as chats
from cardchat.chat.turns import post_message
from cardchat.generation.engine import generate
from cardchat.parsing import requests
from cardchat.repo import messages as messages_repo
from cardchat.repo.chats import read_background
from cardchat.retrieval.background import card_numbers
from cardchat.schema.documents import CHAT_PRIVATE, Card
from engine_support import quick, store_embedded, tide_notes

pytestmark = pytest.mark.emulator
__all__ = ["quick"]  # a fixture, used by name

#: Its title's words are in every tide note, its body is about bread: next to thirty notes on tides,
#: no ranker puts it in a 5 % background, even for a question that names it.
ALMANAC = "card-almanac"
ALMANAC_CARD = Card("Tidal range", "Sourdough rises overnight in a cool kitchen; feed the starter. " * 8, "u1")


def new_chat(db, question: str) -> tuple[str, list[str]]:
    grant_ai(db, "u1")
    ids = store_embedded(db, tide_notes("u1") | {ALMANAC: ALMANAC_CARD})
    req = requests.create_chat(
        {"card_ids": ids, "initial_message": question, "model": "offline-extractive", "background_percentage": 0.05}
    )
    chat_id = chats.create_chat(db, "u1", req).chat_id
    return chat_id, db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()["card_ids"]


def test_a_card_the_first_question_names_by_title_is_packed_first(db):
    _, plain = new_chat(db, "Why are there two tides a day?")
    assert ALMANAC not in plain  # ranked out on its words alone

    _, named = new_chat(db, "Why are there two tides a day, according to my tidal range?")
    assert named[0] == ALMANAC
    assert len(named) > 1  # the rest is filled by the ranking as before


def test_a_follow_up_naming_a_card_by_title_brings_it_into_the_context(db):
    chat_id, _ = new_chat(db, "Why are there two tides a day?")
    assert generate(db, messages_repo.chat_messages(db, chat_id)[-1][0]) == "complete"
    assert generate(db, post_message(db, "u1", chat_id, "And what does the Tidal Range say?")) == "complete"
    after = db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()
    n = after["card_ids"].index(ALMANAC) + 1
    assert after["context_turns"][0]["added"][0]["card"] == ALMANAC
    assert n in card_numbers(read_background(db, chat_id))
