"""Posting and retrying on the real Firestore emulator, and the pure history
windowing."""

from __future__ import annotations

import math
import threading
from dataclasses import replace
from datetime import timedelta

import pytest
from google.cloud import firestore

from cardchat.chat.turns import (
    MESSAGE_OVERHEAD_TOKENS,
    ContextTooSmall,
    byte_bounds,
    fit_history,
    history_before,
    is_stalled,
    output_reserve,
    post_message,
    retry_message,
    window_for,
)
from cardchat.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from cardchat.ids import chunk_id
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.parsing.requests import MAX_CONTENT_CHARS
from cardchat.parsing.requests import post_message as parse_post
from cardchat.repo import messages as repo
from cardchat.schema.documents import CHAT_MESSAGES, CHATS, StreamChunk
from cardchat.schema.documents import now as utc_now
from chat_support import answered_chat

SPEC = MODELS[OFFLINE_MODEL_ID]


def make_chat(db: firestore.Client, answer_status: str = "complete", **answer_fields) -> None:
    """chat1 owned by u1: a question (index 0) and an answer (index 1)."""
    answered_chat(db, "chat1", status=answer_status, ids=("q0", "a1"), **answer_fields)


def chat_messages(db: firestore.Client) -> list[dict]:
    return [m for _, m in repo.chat_messages(db, "chat1")]


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
    assert msg["attempts"] == 1  # the next claim counts the new attempt
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


def test_is_stalled_only_for_a_live_answer_past_its_lease():
    now = utc_now()
    assert is_stalled({"status": "streaming", "lease_expires": now - timedelta(seconds=1)}, now)
    assert not is_stalled({"status": "streaming", "lease_expires": now + timedelta(seconds=1)}, now)
    assert is_stalled({"status": "streaming", "lease_expires": None}, now)
    assert not is_stalled({"status": "failed", "lease_expires": now - timedelta(hours=1)}, now)
    # a stub no generator claimed (a lost trigger delivery) stalls too
    assert is_stalled({"status": "ready", "lease_expires": now - timedelta(seconds=1)}, now)
    assert not is_stalled({"status": "ready", "lease_expires": now + timedelta(seconds=1)}, now)
    assert not is_stalled({"status": "complete", "lease_expires": now - timedelta(hours=1)}, now)


@pytest.mark.emulator
def test_an_unclaimed_stub_past_its_lease_can_be_retried_and_gets_a_new_lease(db):
    make_chat(db, "ready", lease_expires=utc_now() - timedelta(seconds=1))
    with pytest.raises(FailedPrecondition, match="stopped"):
        post_message(db, "u1", "chat1", "next question")
    assert retry_message(db, "u1", "a1") == "a1"
    msg = db.collection(CHAT_MESSAGES).document("a1").get().to_dict()
    assert msg["status"] == "ready" and msg["lease_expires"] > utc_now()


@pytest.mark.emulator
def test_new_stubs_carry_a_claim_lease(db):
    make_chat(db, "complete")
    stub = post_message(db, "u1", "chat1", "next question")
    msg = db.collection(CHAT_MESSAGES).document(stub).get().to_dict()
    assert msg["status"] == "ready" and msg["lease_expires"] > utc_now()


def test_history_keeps_questions_and_complete_answers_before_the_answer():
    msgs = [
        {"message_index": 3, "role": "user", "content": "q3", "status": "complete"},
        {"message_index": 0, "role": "user", "content": "q0", "status": "complete"},
        {"message_index": 1, "role": "assistant", "content": "a1", "status": "complete"},
        {"message_index": 2, "role": "assistant", "content": "partial", "status": "failed"},
        {"message_index": 4, "role": "assistant", "content": "", "status": "streaming"},
    ]
    assert history_before(msgs, 4) == [
        {"role": "user", "content": "q0"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q3"},
    ]


def _history(n: int) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(n)]


def test_fit_history_keeps_everything_that_fits():
    window = fit_history(_history(5), [100] * 5, 1000, SPEC)
    assert window.dropped == 0 and len(window.messages) == 5
    assert window.max_tokens == output_reserve(SPEC) == 1024


def test_fit_history_drops_whole_exchanges_from_the_oldest():
    size = 4900
    budget = SPEC.context_window - 2000 - output_reserve(SPEC)
    fits = budget // (size + MESSAGE_OVERHEAD_TOKENS)
    history = _history(9)
    window = fit_history(history, [size] * 9, 2000, SPEC)
    # dropping 3 would leave 6 that fit, but they would start on an answer: a 4th goes too
    assert fits == 6 and window.dropped == 4
    assert window.messages == history[4:] and window.messages[0]["role"] == "user"


def test_fit_history_never_drops_the_newest_message():
    history = _history(3)
    big = SPEC.context_window - 1500
    window = fit_history(history, [10, 10, big], 1000, SPEC)
    assert window.dropped == 2 and window.messages == history[2:]
    # what is left for the answer is handed to the provider as its budget
    assert window.max_tokens == SPEC.context_window - 1000 - big - MESSAGE_OVERHEAD_TOKENS
    with pytest.raises(ContextTooSmall):
        fit_history(history, [10, 10, SPEC.context_window], 0, SPEC)


def test_reserve_is_the_output_limit_capped_at_a_quarter_of_the_window():
    assert output_reserve(SPEC) == SPEC.max_output_tokens == 1024
    greedy = replace(SPEC, context_window=128_000, max_output_tokens=100_000)
    assert output_reserve(greedy) == 32_000


def test_window_counts_tokens_only_when_the_byte_bound_does_not_fit():
    calls: list[int] = []

    def count(texts, tokenizer):
        from cardchat.llm.tokens import count_tokens

        calls.append(len(texts))
        return count_tokens(texts, tokenizer)

    msgs = [
        {
            "message_index": i,
            "role": "user" if i % 2 == 0 else "assistant",
            "status": "complete",
            "content": f"message {i} " + "tide " * 3000,
        }
        for i in range(9)
    ]
    short = window_for(msgs[-1:], 9, 0, SPEC, count)
    assert (short.dropped, calls) == (0, [])  # fits by the bound: no tokenizer
    long = window_for(msgs, 9, 0, SPEC, count)
    assert calls == [9]
    # "tide " is one token: 3,000+ tokens a message, 15,000+ bytes by the bound
    assert long.dropped == 0
    assert byte_bounds(["héllo"], "estimate-claude") == [math.ceil(6 * 1.35)]
