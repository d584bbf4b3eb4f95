"""Posting and retrying on the real Firestore emulator (the history window: test_history_window.py)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from google.cloud import firestore

from cardchat.chat.turns import is_stalled, post_message, retry_message
from cardchat.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from cardchat.ids import chunk_id
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.parsing.requests import MAX_CONTENT_CHARS
from cardchat.parsing.requests import post_message as parse_post
from cardchat.repo import messages as repo
from cardchat.schema.documents import CHAT_MESSAGES, CHATS
from cardchat.schema.documents import now as utc_now
from cardchat.schema.messages import ChatMessage, StreamChunk
from chat_support import answered_chat

SPEC = MODELS[OFFLINE_MODEL_ID]


def make_chat(db: firestore.Client, answer_status: str = "complete", **answer_fields) -> None:
    """chat1 owned by u1: a question (index 0) and an answer (index 1)."""
    answered_chat(db, "chat1", status=answer_status, ids=("q0", "a1"), **answer_fields)


def chat_messages(db: firestore.Client) -> list[dict]:
    return [m.to_dict() for _, m in repo.chat_messages(db, "chat1")]


@pytest.mark.emulator
def test_post_appends_the_question_and_a_ready_stub(db):
    make_chat(db)
    before = db.collection(CHATS).document("chat1").get().to_dict()
    stub_id = post_message(db, "u1", "chat1", "second question?")
    msgs = chat_messages(db)
    assert [(m["message_index"], m["role"], m["status"]) for m in msgs] == [
        (0, "user", "complete"),
        (1, "assistant", "complete"),
        (2, "user", "complete"),
        (3, "assistant", "ready"),
    ]
    assert msgs[2]["content"] == "second question?"
    stub = db.collection(CHAT_MESSAGES).document(stub_id).get().to_dict()
    assert stub["message_index"] == 3 and stub["model"] == OFFLINE_MODEL_ID and stub["content"] == ""
    chat = db.collection(CHATS).document("chat1").get().to_dict()
    assert chat["message_count"] == 4
    assert chat["last_updated"] > before["last_updated"]


@pytest.mark.emulator
@pytest.mark.parametrize(
    "status, fields, reason",
    [
        ("ready", {}, "still being written"),
        ("streaming", {"lease_expires": timedelta(minutes=5)}, "still being written"),
        ("streaming", {"lease_expires": -timedelta(seconds=1)}, "stopped"),
        ("failed", {"error": "x"}, "failed"),
    ],
)
def test_post_is_refused_until_the_last_answer_is_complete(db, status, fields, reason):
    # A lease is set from now, not from when the cases were collected: a slow suite outlived one of 5 minutes.
    fields = {k: utc_now() + v if isinstance(v, timedelta) else v for k, v in fields.items()}
    make_chat(db, status, **fields)
    with pytest.raises(FailedPrecondition, match=reason):
        post_message(db, "u1", "chat1", "next?")
    assert len(chat_messages(db)) == 2
    assert db.collection(CHATS).document("chat1").get().get("message_count") == 2


@pytest.mark.emulator
def test_post_checks_owner_chat_and_content(db):
    make_chat(db)
    with pytest.raises(PermissionDenied):
        post_message(db, "intruder", "chat1", "hi")
    with pytest.raises(NotFound):
        post_message(db, "u1", "no-such-chat", "hi")
    for bad in ("", "   \n", None, 42, "x" * (MAX_CONTENT_CHARS + 1), "lone \ud800 surrogate"):
        with pytest.raises(InvalidArgument, match=r"^content:"):
            parse_post({"chat_id": "chat1", "content": bad})
    post_message(db, "u1", "chat1", parse_post({"chat_id": "chat1", "content": "x" * MAX_CONTENT_CHARS})[1])
    assert len(chat_messages(db)) == 4


@pytest.mark.emulator
def test_a_follow_up_is_stored_trimmed_as_the_first_message_is(db):
    make_chat(db)
    _, text = parse_post({"chat_id": "chat1", "content": "  \n spaced out \n " + " " * MAX_CONTENT_CHARS})
    post_message(db, "u1", "chat1", text)  # the limit counts the trimmed text
    assert chat_messages(db)[2]["content"] == "spaced out"


@pytest.mark.emulator
def test_concurrent_posts_accept_exactly_one(db):
    # Four racers on one chat document: with the SDK's own retries alone they
    # deadlocked on its lock until every attempt was spent (repo/transactions.py).
    make_chat(db)
    outcomes: dict[str, object] = {}

    def post(text: str) -> None:
        try:
            outcomes[text] = post_message(db, "u1", "chat1", text)
        except FailedPrecondition as e:
            outcomes[text] = e

    threads = [threading.Thread(target=post, args=(t,)) for t in ("alpha", "beta", "gamma", "delta")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    accepted = [k for k, v in outcomes.items() if isinstance(v, str)]
    refused = [k for k, v in outcomes.items() if isinstance(v, FailedPrecondition)]
    assert len(accepted) == 1 and len(refused) == 3
    msgs = chat_messages(db)
    assert [m["message_index"] for m in msgs] == [0, 1, 2, 3]
    assert msgs[2]["content"] == accepted[0] and msgs[3]["status"] == "ready"
    assert db.collection(CHATS).document("chat1").get().get("message_count") == 4


@pytest.mark.emulator
def test_retry_puts_a_failed_answer_back_to_ready_and_drops_its_chunks(db):
    make_chat(db, "failed", error="Anthropic: the service is overloaded", attempts=1)
    for i in range(3):
        db.collection("chat_messages_streaming").document(chunk_id("a1", i)).set(
            StreamChunk(chat="chat1", message="a1", message_index=1, index=i, content="x").to_dict()
        )
    with pytest.raises(PermissionDenied):
        retry_message(db, "intruder", "a1")
    with pytest.raises(FailedPrecondition):
        retry_message(db, "u1", "q0")  # a question is not an answer
    with pytest.raises(NotFound):
        retry_message(db, "u1", "nope")

    assert retry_message(db, "u1", "a1") == "a1"
    msg = db.collection(CHAT_MESSAGES).document("a1").get().to_dict()
    assert (msg["status"], msg["content"], msg["error"], msg["message_index"]) == ("ready", "", None, 1)
    assert msg["attempts"] == 1  # the next run to take it counts the new attempt
    assert repo.read_chunks(db, "a1") == []
    with pytest.raises(FailedPrecondition, match="ready"):
        retry_message(db, "u1", "a1")


@pytest.mark.emulator
def test_retry_refuses_a_complete_or_live_answer(db):
    make_chat(db, "streaming", lease_expires=utc_now() + timedelta(minutes=1))
    with pytest.raises(FailedPrecondition):
        retry_message(db, "u1", "a1")
    db.collection(CHAT_MESSAGES).document("a1").update({"status": "complete"})
    with pytest.raises(FailedPrecondition):
        retry_message(db, "u1", "a1")


def _answer(status, lease) -> ChatMessage:
    return ChatMessage(chat="c", message_index=1, role="assistant", content="", status=status, lease_expires=lease)


def test_is_stalled_only_for_a_live_answer_past_its_lease():
    now = utc_now()
    assert is_stalled(_answer("streaming", now - timedelta(seconds=1)), now)
    assert not is_stalled(_answer("streaming", now + timedelta(seconds=1)), now)
    assert is_stalled(_answer("streaming", None), now)
    assert not is_stalled(_answer("failed", now - timedelta(hours=1)), now)
    # a stub no generator took (a lost trigger delivery) stalls too
    assert is_stalled(_answer("ready", now - timedelta(seconds=1)), now)
    assert not is_stalled(_answer("ready", now + timedelta(seconds=1)), now)
    assert not is_stalled(_answer("complete", now - timedelta(hours=1)), now)


@pytest.mark.emulator
def test_an_untaken_stub_past_its_lease_can_be_retried_and_gets_a_new_lease(db):
    make_chat(db, "ready", lease_expires=utc_now() - timedelta(seconds=1))
    with pytest.raises(FailedPrecondition, match="stopped"):
        post_message(db, "u1", "chat1", "next question")
    assert retry_message(db, "u1", "a1") == "a1"
    msg = db.collection(CHAT_MESSAGES).document("a1").get().to_dict()
    assert msg["status"] == "ready" and msg["lease_expires"] > utc_now()


@pytest.mark.emulator
def test_new_stubs_carry_a_ready_lease(db):
    make_chat(db, "complete")
    stub = post_message(db, "u1", "chat1", "next question")
    msg = db.collection(CHAT_MESSAGES).document(stub).get().to_dict()
    assert msg["status"] == "ready" and msg["lease_expires"] > utc_now()
