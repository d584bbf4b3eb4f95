"""Answers left `streaming` from before answers had leases (no `lease_expires` field at all): the
scheduled sweep's indexed query cannot see them, so the one-off leaseless sweep settles them, as
the sweeper settles a run whose lease ran out, and leaves every other answer alone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from google.cloud import firestore

from cardchat.generation.engine import generate
from cardchat.generation.sweeper import sweep, sweep_leaseless
from cardchat.schema.documents import CHAT_MESSAGES
from cardchat.schema.documents import now as utc_now
from engine_support import OFFLINE_ANSWER, chunks_left, make_chat, message, quick
from fault_support import die_mid_answer

pytestmark = pytest.mark.emulator
__all__ = ["quick"]  # fixtures, used by name


def _legacy(db, chat_id: str, texts: list[str]) -> str:
    """A streaming answer as written before leases: its run's chunks, no lease field."""
    stub = make_chat(db, chat_id)
    die_mid_answer(db, stub, utc_now() + timedelta(minutes=5), texts)
    db.collection(CHAT_MESSAGES).document(stub).update({"lease_expires": firestore.DELETE_FIELD})
    assert "lease_expires" not in message(db, stub)
    return stub


def test_a_legacy_streaming_answer_is_re_driven_and_answered_once(db):
    stub = _legacy(db, "legacy", ["Words of a run ", "that died long ago"])
    assert sweep(db).found == 0  # what the scheduled sweep cannot see

    done = sweep_leaseless(db)
    assert (done.found, done.redriven, done.failed) == (1, [stub], [])
    msg = message(db, stub)
    assert (msg["status"], msg["content"], msg["redrives"]) == ("ready", "", 1) and msg["lease_expires"] is not None
    assert chunks_left(db) == 0
    assert generate(db, stub) == "complete" and message(db, stub)["content"] == OFFLINE_ANSWER
    assert sweep_leaseless(db).found == 0


def test_a_legacy_answer_already_re_driven_fails_with_its_text_kept(db):
    stub = _legacy(db, "legacy", ["Partial text"])
    db.collection(CHAT_MESSAGES).document(stub).update({"redrives": 1})
    assert sweep_leaseless(db).failed == [stub]
    msg = message(db, stub)
    assert (msg["status"], msg["content"], msg["lease_expires"]) == ("failed", "Partial text", None)


def test_answers_with_a_lease_or_finished_are_left_alone(db):
    generate(db, make_chat(db, "done"))
    live = make_chat(db, "live")
    die_mid_answer(db, live, utc_now() + timedelta(minutes=5), ["Still going"])
    make_chat(db, "waiting")
    assert sweep_leaseless(db).found == 0
    assert message(db, live)["status"] == "streaming" and message(db, "waiting-m1")["status"] == "ready"
