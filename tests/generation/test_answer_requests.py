"""What fires generateAnswer: one answer request per run asked for (a new turn, a retry, the
sweeper's re-drive), written in the commit that makes the answer `ready`; the run's own writes
to the message (claim, chunks and lease renewals, final write) ask for none, and the request is
removed once its run ends."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from cardchat.chat.turns import post_message, retry_message
from cardchat.generation.answer_runs import run_request
from cardchat.generation.sweeper import sweep
from cardchat.schema.documents import SCRATCH_TTL
from cardchat.schema.documents import now as utc_now
from cardchat.schema.messages import ANSWER_REQUESTS
from engine_support import OFFLINE_ANSWER, make_chat, message, quick
from fault_support import die_mid_answer

pytestmark = pytest.mark.emulator
__all__ = ["quick"]  # fixtures, used by name
ROOT = Path(__file__).resolve().parents[2]


def _requests(db) -> dict[str, dict]:
    return {d.id: d.to_dict() for d in db.collection(ANSWER_REQUESTS).stream()}


def _answered_chat(db) -> None:
    stub = make_chat(db)
    assert [r["message"] for r in _requests(db).values()] == [stub]  # a new chat's first answer
    for request_id, request in _requests(db).items():
        assert run_request(db, request_id, request) is not None
    assert _requests(db) == {}


def _delivered(db, stub: str) -> str:
    """`stub`'s request delivered (and its run dead, say): removed as the trigger removes it."""
    for request_id in _requests(db):
        db.collection(ANSWER_REQUESTS).document(request_id).delete()
    return stub


def test_a_follow_up_asks_for_one_run_and_its_run_asks_for_none(db):
    _answered_chat(db)
    stub = post_message(db, "u1", "chat1", "And the tides?")
    asked = _requests(db)
    assert [r["message"] for r in asked.values()] == [stub]
    request_id, request = next(iter(asked.items()))
    assert request["expires"] == request["requested"] + SCRATCH_TTL

    done = run_request(db, request_id, request)
    assert done is not None and done["content"] == OFFLINE_ANSWER
    assert _requests(db) == {}  # the claim, the chunks' lease renewals and the final write asked for nothing


def test_a_duplicate_delivery_runs_nothing_and_leaves_no_request(db):
    _answered_chat(db)
    stub = post_message(db, "u1", "chat1", "And the tides?")
    request_id, request = next(iter(_requests(db).items()))
    assert run_request(db, request_id, request) is not None
    assert run_request(db, request_id, request) is None  # delivered again: the claim refuses it
    assert message(db, stub)["attempts"] == 1 and _requests(db) == {}


def test_a_sweepers_re_drive_and_a_retry_each_ask_for_a_run(db):
    stub = _delivered(db, make_chat(db))
    lease_end = utc_now() + timedelta(seconds=30)
    die_mid_answer(db, stub, lease_end, ["Old words"])
    assert _requests(db) == {}  # the dead run's writes asked for nothing
    assert sweep(db, now=lambda: lease_end).redriven == [stub]
    assert [r["message"] for r in _requests(db).values()] == [stub]
    for request_id, request in _requests(db).items():
        run_request(db, request_id, request)

    db.collection("chat_messages").document(stub).update({"status": "failed", "lease_expires": None})
    retry_message(db, "u1", stub)
    assert [r["message"] for r in _requests(db).values()] == [stub]


def test_requests_carry_an_expiry_that_a_declared_ttl_policy_deletes_them_by():
    """The backstop for a request whose run died before removing it."""
    overrides = json.loads((ROOT / "firestore.indexes.json").read_text())["fieldOverrides"]
    assert {"collectionGroup": ANSWER_REQUESTS, "fieldPath": "expires", "ttl": True, "indexes": []} in overrides
