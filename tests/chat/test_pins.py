"""Pin and exclude on the real emulator (chat/pins.py): the owner's choices are kept where only
they read them, a pinned card is in the context of the next answer and stays there, an excluded
one leaves it and per-turn retrieval never brings it back; refusals all look alike."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from google.cloud.firestore import FieldFilter

from cardchat.access.permissions import grant_ai
from cardchat.chat import create as chats
from cardchat.chat import pins
from cardchat.chat.turns import post_message
from cardchat.errors import FailedPrecondition, NotFound, ResourceExhausted
from cardchat.generation.engine import generate
from cardchat.parsing import requests
from cardchat.repo import messages as messages_repo
from cardchat.repo.chats import read_background
from cardchat.retrieval.background import card_numbers
from cardchat.schema.documents import (
    CARDS,
    CHAT_MESSAGES,
    CHAT_PRIVATE,
    CHATS,
    MAX_EXCLUSIONS,
    MAX_PINS,
    PIN_WINDOW,
    RATE_LIMITS,
    RATE_WINDOWS,
    Card,
)
from engine_support import quick, store_embedded, tide_notes

pytestmark = pytest.mark.emulator
__all__ = ["quick"]  # a fixture, used by name

LENS = "card-lighthouse-lens"
LENS_CARD = Card("The lighthouse lens", "The lighthouse uses a first-order Fresnel lens, ground in 1871. " * 6, "u1")
THEIRS = "card-of-u2"


def new_chat(db, **extra) -> str:
    grant_ai(db, "u1")
    cards = tide_notes("u1") | {LENS: LENS_CARD}
    ids = store_embedded(db, cards)
    db.collection(CARDS).document(THEIRS).set(Card("Private of u2", "Not for u1.", "u2").to_dict())
    req = requests.create_chat(
        {
            "card_ids": ids,
            "initial_message": "Why are there two tides a day?",
            "model": "offline-extractive",
            "background_percentage": 0.05,
            **extra,
        }
    )
    chat_id = chats.create_chat(db, "u1", req).chat_id
    assert generate(db, answer_of(db, chat_id)) == "complete"
    return chat_id


def answer_of(db, chat_id: str) -> str:
    return messages_repo.chat_messages(db, chat_id)[-1][0]


def private(db, chat_id: str) -> dict:
    return db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()


def ask(db, chat_id: str, question: str) -> None:
    assert generate(db, post_message(db, "u1", chat_id, question)) == "complete"


def numbers_in_context(db, chat_id: str) -> list[int]:
    return card_numbers(read_background(db, chat_id))


def client_readable(db, chat_id: str) -> str:
    docs = [db.collection(CHATS).document(chat_id).get().to_dict()]
    messages = db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", chat_id))
    docs += [d.to_dict() for d in messages.stream()]
    return json.dumps(docs, default=str)


def test_a_pinned_card_is_in_the_next_answers_context_within_the_budget_and_stays(db):
    chat_id = new_chat(db)
    start = private(db, chat_id)
    assert LENS not in start["card_ids"]

    assert pins.choose(db, "u1", chat_id, LENS, "pin").to_dict() == {"pinned": True, "excluded": False}
    assert private(db, chat_id)["pinned_cards"] == [LENS]
    assert "Fresnel" not in read_background(db, chat_id)  # re-packed on the next answer, not before
    ask(db, chat_id, "What are spring tides?")
    after = private(db, chat_id)
    n = after["card_ids"].index(LENS) + 1
    assert after["card_ids"][: len(start["card_ids"])] == start["card_ids"]  # earlier numbers unchanged
    assert n in numbers_in_context(db, chat_id) and "Fresnel" in read_background(db, chat_id)
    assert LENS not in client_readable(db, chat_id)

    for question in ("How do tide tables work?", "And the tidal range?"):  # later turns never drop it
        ask(db, chat_id, question)
        assert n in numbers_in_context(db, chat_id)

    pins.choose(db, "u1", chat_id, LENS, "unpin")
    assert private(db, chat_id)["pinned_cards"] == []


def test_an_excluded_card_leaves_the_context_and_per_turn_retrieval_never_brings_it_back(db):
    chat_id = new_chat(db)
    ids = private(db, chat_id)["card_ids"]
    top = ids[0]
    title = (db.collection(CARDS).document(top).get().to_dict())["title"]

    pins.choose(db, "u1", chat_id, top, "exclude")
    # a follow-up naming it by title and by its words would rank it first
    ask(db, chat_id, f"What does {title} say about tides rising twice a day?")
    after = private(db, chat_id)
    assert after["card_ids"][0] == top  # its number stays taken: earlier answers still cite it
    assert 1 not in numbers_in_context(db, chat_id)
    assert all(a["card"] != top for t in after["context_turns"] for a in t["added"])

    pins.choose(db, "u1", chat_id, top, "include")  # undone: per-turn retrieval may bring it back
    ask(db, chat_id, f"What does {title} say about tides rising twice a day?")
    assert 1 in numbers_in_context(db, chat_id)


def test_pinning_undoes_an_exclusion_and_the_other_way_round(db):
    chat_id = new_chat(db)
    pins.choose(db, "u1", chat_id, LENS, "exclude")
    assert pins.choose(db, "u1", chat_id, LENS, "pin").to_dict() == {"pinned": True, "excluded": False}
    assert pins.choose(db, "u1", chat_id, LENS, "exclude").to_dict() == {"pinned": False, "excluded": True}
    p = private(db, chat_id)
    assert (p["pinned_cards"], p["excluded_cards"]) == ([], [LENS])


def test_a_card_the_owner_cannot_read_and_someone_elses_chat_get_the_same_not_found_as_a_missing_card(db):
    chat_id = new_chat(db)
    refusals = []
    for who, chat, card, action in [
        ("u1", chat_id, "no-such-card", "pin"),
        ("u1", chat_id, THEIRS, "pin"),
        ("u1", chat_id, THEIRS, "exclude"),
        ("u2", chat_id, THEIRS, "pin"),  # u2 may read the card, but the chat is u1's
        ("u2", chat_id, THEIRS, "unpin"),
        ("u1", "no-such-chat", LENS, "pin"),
    ]:
        with pytest.raises(NotFound) as refused:
            pins.choose(db, who, chat, card, action)
        refusals.append(refused.value.message)
    assert len(set(refusals)) == 1
    p = private(db, chat_id)
    assert (p["pinned_cards"], p["excluded_cards"]) == ([], [])


def test_over_fifty_pins_is_a_failed_precondition(db):
    chat_id = new_chat(db)
    extra = {f"pin-{i:02d}": Card(f"Pin {i}", "Short.", "u1") for i in range(MAX_PINS + 1)}
    batch = db.batch()
    for cid, card in extra.items():
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
    batch.commit()
    for cid in list(extra)[:MAX_PINS]:
        pins.choose(db, "u1", chat_id, cid, "pin", per_minute=10 * MAX_PINS)
    with pytest.raises(FailedPrecondition, match=f"at most {MAX_PINS} pinned"):
        pins.choose(db, "u1", chat_id, list(extra)[MAX_PINS], "pin", per_minute=10 * MAX_PINS)
    assert len(private(db, chat_id)["pinned_cards"]) == MAX_PINS
    pins.choose(db, "u1", chat_id, "pin-00", "pin", per_minute=10 * MAX_PINS)  # a pinned card again: no new pin


def test_past_the_most_exclusions_is_a_failed_precondition_naming_the_limit(db):
    chat_id = new_chat(db)
    full = [f"gone-{i:03d}" for i in range(MAX_EXCLUSIONS)]
    db.collection(CHAT_PRIVATE).document(chat_id).update({"excluded_cards": full})
    with pytest.raises(FailedPrecondition, match=f"at most {MAX_EXCLUSIONS} excluded"):
        pins.choose(db, "u1", chat_id, LENS, "exclude")
    assert private(db, chat_id)["excluded_cards"] == full
    pins.choose(db, "u1", chat_id, full[0], "include")  # making room is always allowed
    pins.choose(db, "u1", chat_id, LENS, "exclude")
    assert LENS in private(db, chat_id)["excluded_cards"]


def pin_slots(db) -> int:
    snap = db.collection(RATE_LIMITS).document("u1").collection(RATE_WINDOWS).document(PIN_WINDOW).get()
    return len((snap.to_dict() or {}).get("recent") or []) if snap.exists else 0


def test_pins_and_exclusions_share_a_minute_and_a_refused_call_spends_no_slot(db):
    chat_id = new_chat(db)
    at = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    with pytest.raises(NotFound):
        pins.choose(db, "u1", chat_id, THEIRS, "pin", now=at, per_minute=2)
    with pytest.raises(NotFound):
        pins.choose(db, "u2", chat_id, LENS, "unpin", now=at, per_minute=2)
    assert pin_slots(db) == 0
    pins.choose(db, "u1", chat_id, LENS, "pin", now=at, per_minute=2)
    pins.choose(db, "u1", chat_id, LENS, "exclude", now=at, per_minute=2)
    with pytest.raises(ResourceExhausted, match="at most 2 a minute"):
        pins.choose(db, "u1", chat_id, LENS, "include", now=at, per_minute=2)
    assert private(db, chat_id)["excluded_cards"] == [LENS]  # the refused call changed nothing
    assert pin_slots(db) == 2
    pins.choose(db, "u1", chat_id, LENS, "include", now=at + timedelta(minutes=1), per_minute=2)
    assert private(db, chat_id)["excluded_cards"] == []


def test_a_chat_made_with_a_pin_holds_that_card_first_and_keeps_the_pin(db):
    chat_id = new_chat(db, pinned_card_ids=[LENS, THEIRS])  # u2's private card is dropped without a trace
    p = private(db, chat_id)
    assert p["card_ids"][0] == LENS and p["pinned_cards"] == [LENS]
    assert THEIRS not in p["card_ids"]
    assert "Fresnel" in read_background(db, chat_id)
