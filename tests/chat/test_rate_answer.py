"""rateAnswer through the real Functions, Auth and Firestore emulators:
the owner rates a complete answer; every refusal has its
code; the rating lives in answer_feedback, never on the message that visitors
of a published chat read."""

from __future__ import annotations

import pytest
from conftest import CallError
from test_endpoints import ai_user

from cardchat.schema.accounts import ANSWER_FEEDBACK
from cardchat.schema.documents import CHAT_MESSAGES
from chat_support import answered_chat

pytestmark = pytest.mark.functions
__all__ = ["ai_user"]  # fixtures, used by name

Q, A = "rated-q0", "rated-a1"


@pytest.fixture
def rated(app_db, ai_user):
    uid, token = ai_user
    answered_chat(app_db, "rated", uid, "complete", ids=(Q, A))
    return uid, token


def refused(call, data, token) -> CallError:
    with pytest.raises(CallError) as e:
        call("rateAnswer", data, token)
    return e.value


def feedback(db, message_id: str) -> dict | None:
    snap = db.collection(ANSWER_FEEDBACK).document(message_id).get()
    return snap.to_dict() if snap.exists else None


def test_the_owner_rates_changes_and_clears_a_rating_and_the_message_stays_as_it_was(call, app_db, rated):
    uid, token = rated
    before = app_db.collection(CHAT_MESSAGES).document(A).get().to_dict()
    assert call("rateAnswer", {"message_id": A, "rating": "down", "comment": "  missed the tide tables  "}, token) == {}
    stored = feedback(app_db, A)
    assert {k: stored[k] for k in ("owner", "chat", "message", "rating", "comment")} == {
        "owner": uid,
        "chat": "rated",
        "message": A,
        "rating": "down",
        "comment": "missed the tide tables",
    }
    call("rateAnswer", {"message_id": A, "rating": "up"}, token)
    changed = feedback(app_db, A)
    assert (changed["rating"], changed["comment"], changed["created"]) == ("up", "", stored["created"])
    assert app_db.collection(CHAT_MESSAGES).document(A).get().to_dict() == before  # nothing on the message
    call("rateAnswer", {"message_id": A, "rating": None}, token)
    assert feedback(app_db, A) is None


def test_signed_out_is_unauthenticated(call, rated):
    assert refused(call, {"message_id": A, "rating": "up"}, None).status == "UNAUTHENTICATED"


def test_another_users_message_is_permission_denied(call, app_db, rated, sign_up):
    _, stranger = sign_up()
    assert refused(call, {"message_id": A, "rating": "up"}, stranger).status == "PERMISSION_DENIED"
    assert feedback(app_db, A) is None


@pytest.mark.parametrize("status", ["streaming", "failed"])
def test_an_unfinished_answer_or_a_question_is_a_failed_precondition(call, app_db, ai_user, status):
    uid, token = ai_user
    answered_chat(app_db, "pending", uid, status, ids=("pending-q0", "pending-a1"))
    assert refused(call, {"message_id": "pending-a1", "rating": "up"}, token).status == "FAILED_PRECONDITION"
    assert refused(call, {"message_id": "pending-q0", "rating": "up"}, token).status == "FAILED_PRECONDITION"
    assert feedback(app_db, "pending-a1") is None


def test_a_missing_message_is_not_found(call, rated):
    _, token = rated
    assert refused(call, {"message_id": "no-such-message", "rating": "up"}, token).status == "NOT_FOUND"


BAD = [
    ({"rating": "up"}, "message_id"),
    ({"message_id": "__x__", "rating": "up"}, "message_id"),
    ({"message_id": A}, "rating"),
    ({"message_id": A, "rating": "meh"}, "rating"),
    ({"message_id": A, "rating": True}, "rating"),
    ({"message_id": A, "rating": "up", "comment": 7}, "comment"),
    ({"message_id": A, "rating": "up", "comment": "x" * 2_001}, "comment"),
    ({"message_id": A, "rating": "down", "comment": "bad \ud800"}, "comment"),
]


@pytest.mark.parametrize("data, field", BAD, ids=[f"{f}-{i}" for i, (_, f) in enumerate(BAD)])
def test_bad_input_is_invalid_argument_naming_the_field(call, app_db, rated, data, field):
    _, token = rated
    e = refused(call, data, token)
    assert (e.status, e.message.split(":")[0]) == ("INVALID_ARGUMENT", field)
    assert feedback(app_db, A) is None


def test_a_comment_of_exactly_the_limit_is_kept(call, app_db, rated):
    _, token = rated
    call("rateAnswer", {"message_id": A, "rating": "down", "comment": "y" * 2_000}, token)
    assert len(feedback(app_db, A)["comment"]) == 2_000
