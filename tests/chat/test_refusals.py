"""A refused call costs nothing, in the domain on the real
Firestore emulator: someone else's chat, a missing one, an answer in the
wrong state or a quota already used up is refused with no rate-limit slot
spent and nothing written, because the slot and the reservation are taken
in the same transaction as the checks. (Bad input is refused earlier, in
parsing: test_endpoint_refusals.py.)"""

from __future__ import annotations

from datetime import timedelta

import pytest

from cardchat.access.ratelimit import Limits, admit
from cardchat.chat import branch as branches
from cardchat.chat import create as chats
from cardchat.chat.turns import post_message, retry_message
from cardchat.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, ResourceExhausted
from cardchat.parsing.requests import create_chat as parse_create
from cardchat.repo import ratelimit as ratelimit_repo
from cardchat.schema.accounts import TokenReservation
from cardchat.schema.documents import CHAT_BACKGROUNDS, CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, CHATS, RATE_LIMITS
from cardchat.schema.documents import now as utc_now
from chat_support import answered_chat

pytestmark = pytest.mark.emulator
STORED = (CHATS, CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, CHAT_BACKGROUNDS, RATE_LIMITS)


def everything(db) -> dict:
    return {name: {d.id: d.to_dict() for d in db.collection(name).stream()} for name in STORED}


@pytest.fixture
def world(db):
    """u1's complete chat, u1's chat with an answer still streaming, u2's
    chat, and a rate-limit document for u1 that already holds one message."""
    answered_chat(db, "done", "u1", "complete")
    answered_chat(db, "live", "u1", "streaming", lease_expires=utc_now() + timedelta(minutes=5), attempts=1)
    answered_chat(db, "theirs", "u2", "failed", error="x", attempts=1)
    ratelimit_repo.update(db, "u1", lambda q: admit(q, utc_now(), Limits()))
    return db


REFUSED = [
    ("post to someone else's chat", PermissionDenied, lambda db: post_message(db, "u1", "theirs", "hi")),
    ("post to a missing chat", NotFound, lambda db: post_message(db, "u1", "nope", "hi")),
    ("post while an answer streams", FailedPrecondition, lambda db: post_message(db, "u1", "live", "hi")),
    ("retry someone else's answer", PermissionDenied, lambda db: retry_message(db, "u1", "theirs-a1")),
    ("retry a missing message", NotFound, lambda db: retry_message(db, "u1", "nope")),
    ("retry a complete answer", FailedPrecondition, lambda db: retry_message(db, "u1", "done-a1")),
    ("retry a live answer", FailedPrecondition, lambda db: retry_message(db, "u1", "live-a1")),
    ("retry a question", FailedPrecondition, lambda db: retry_message(db, "u1", "done-q0")),
    ("branch someone else's chat", PermissionDenied, lambda db: branches.branch_chat(db, "u1", "theirs", 0, "q")),
    ("branch a missing chat", NotFound, lambda db: branches.branch_chat(db, "u1", "nope", 0, "q")),
    ("branch at an answer", InvalidArgument, lambda db: branches.branch_chat(db, "u1", "done", 1, "q")),
    ("delete someone else's chat", PermissionDenied, lambda db: chats.delete_chat(db, "u1", "theirs")),
    ("delete a missing chat", NotFound, lambda db: chats.delete_chat(db, "u1", "nope")),
]


@pytest.mark.parametrize("what, error, call", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_refused_call_spends_no_slot_and_writes_nothing(world, what, error, call):
    before = everything(world)
    with pytest.raises(error):
        call(world)
    assert everything(world) == before


def test_a_caller_over_the_cap_is_refused_before_any_work_and_writes_nothing(world):
    full = TokenReservation(message="elsewhere", attempt=1, tokens=1_999_990, created=utc_now())
    ratelimit_repo.update(world, "u1", lambda q: admit(q, utc_now(), Limits(), full))
    before = everything(world)
    request = parse_create({"card_ids": ["no-such-card"], "initial_message": "tides?"}, env={})
    calls = [
        lambda: chats.create_chat(world, "u1", request),
        lambda: post_message(world, "u1", "done", "and then?"),
        lambda: branches.branch_chat(world, "u1", "done", 0, "again?"),
    ]
    for call in calls:
        with pytest.raises(ResourceExhausted) as refused:
            call()
        assert refused.value.retry_after > 0
        assert everything(world) == before


def test_an_admitted_post_takes_its_slot_in_the_same_commit(world):
    before = ratelimit_repo.get(world, "u1")
    stub = post_message(world, "u1", "done", "and then?")
    after = ratelimit_repo.get(world, "u1")
    assert len(after.recent) == len(before.recent) + 1
    assert [r.message for r in after.reservations] == [stub]
