"""Answers on the chat owner's own API key, on the real emulator with the
Anthropic SDK talking to canned wire traffic: the owner's key is the one
sent, a failure says it is theirs, and the key reaches no log and no `error`."""

from __future__ import annotations

import base64
import logging

import httpx2
import pytest

from cardchat.access import own_keys
from cardchat.access.permissions import AIAccess
from cardchat.chat.titles import retitle
from cardchat.chat.turns import post_message, retry_message
from cardchat.generation.engine import generate
from cardchat.ids import first_message_id
from cardchat.llm import keycrypt
from cardchat.schema.documents import CHAT_MESSAGES, CHATS, RATE_LIMITS, USERS, UserDoc
from cardchat.schema.messages import ChatMessage
from engine_support import CLAUDE, SECRET_BACKGROUND, anthropic_wire, make_chat, message
from provider_wire import anthropic_text

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire"]  # a fixture, used by name

OWN = "sk-ant-api03-OWNKEY0123456789abcdefghijklmnopqrstuvwxyzWXYZ"


@pytest.fixture
def own_key(db, monkeypatch, anthropic_wire):
    """u1 holds their own Anthropic key and the deployment holds no Anthropic key."""
    monkeypatch.setenv(keycrypt.KEY_ENV, base64.b64encode(bytes(range(32))).decode())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    own_keys.set_key(db, "u1", "anthropic", OWN)
    return anthropic_wire


def no_grant(db) -> None:
    """u1 may not use the AI: only their own key lets them chat."""
    db.collection(USERS).document("u1").set(UserDoc(may_use_ai=False).to_dict())


def test_an_answer_on_an_own_key_sends_that_key_and_spends_nothing_of_the_day(db, own_key):
    first = make_chat(db, "c0", model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    no_grant(db)
    own_key.responses = [anthropic_text("Fine."), anthropic_text("Also fine.")]
    assert generate(db, first) == "complete"
    stub = post_message(db, "u1", "c0", "And then?", limits=AIAccess(False, frozenset({"anthropic"})).admit(CLAUDE))
    assert generate(db, stub) == "complete"
    assert message(db, stub)["content"] == "Also fine."
    assert [r.headers["authorization"] for r in own_key.requests] == [f"Bearer {OWN}"] * 2
    quota = db.collection(RATE_LIMITS).document("u1").get().to_dict()
    assert quota["reservations"] == [] and quota["day_tokens"] == 0 and len(quota["recent"]) == 1


def test_a_failure_on_an_own_key_says_so_and_the_key_reaches_no_log_or_error(db, own_key, caplog):
    stub = make_chat(db, model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    no_grant(db)
    echo = {"type": "error", "error": {"type": "authentication_error", "message": f"invalid x-api-key {OWN}"}}
    own_key.responses = [httpx2.Response(401, json=echo)]
    with caplog.at_level(logging.DEBUG):
        assert generate(db, stub) == "failed"
    failed = message(db, stub)
    assert failed["error"] == "Your own Anthropic API key failed: Anthropic rejected the API key (HTTP 401)"
    assert "invalid x-api-key" in caplog.text  # the provider's words are logged...
    assert OWN not in caplog.text and "OWNKEY" not in caplog.text  # ...without the key
    assert "OWNKEY" not in repr(failed)


def test_an_own_key_deleted_before_the_run_is_not_replaced_by_the_deployments(db, own_key, monkeypatch):
    stub = make_chat(db, model=CLAUDE)
    no_grant(db)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-DEPLOYMENT0123456789abcdefghijklmnop")
    own_keys.delete_key(db, "u1", "anthropic")
    assert generate(db, stub) == "failed"
    assert message(db, stub)["error"] == "Your own Anthropic API key was removed before the answer started"
    assert own_key.requests == []


DEPLOYMENT = "sk-ant-api03-DEPLOYMENT0123456789abcdefghijklmnop"


def test_an_answer_admitted_on_an_own_key_never_falls_back_to_the_deployments(db, own_key, monkeypatch):
    """Admitted on their own key, an answer skipped the daily cap and reserved
    nothing: run on the deployment's key it would be free of the cap and never
    charged. Deleting the key before the run must not make it so."""
    first = make_chat(db, "c0", model=CLAUDE)  # u1 may use the AI: the deployment's key would be theirs too
    own_key.responses = [anthropic_text("Fine."), anthropic_text("Free?")]
    assert generate(db, first) == "complete"
    stub = post_message(db, "u1", "c0", "And then?", limits=AIAccess(True, frozenset({"anthropic"})).admit(CLAUDE))
    monkeypatch.setenv("ANTHROPIC_API_KEY", DEPLOYMENT)
    own_keys.delete_key(db, "u1", "anthropic")
    assert generate(db, stub) == "failed"
    assert message(db, stub)["error"] == "Your own Anthropic API key was removed before the answer started"
    assert [r.headers["authorization"] for r in own_key.requests] == [f"Bearer {OWN}"]
    quota = db.collection(RATE_LIMITS).document("u1").get().to_dict()
    assert quota["reservations"] == [] and quota["day_tokens"] == 0


def test_a_title_after_an_own_key_answer_never_falls_back_to_the_deployments_key(db, own_key, monkeypatch):
    make_chat(db, "c0", model=CLAUDE)
    question = ChatMessage(chat="c0", message_index=0, role="user", content="Why tides?", status="complete")
    answer = ChatMessage(
        chat="c0", message_index=1, role="assistant", content="Moon.", status="complete", model=CLAUDE, own_key=True
    )
    db.collection(CHAT_MESSAGES).document(first_message_id("c0", 0)).set(question.to_dict())
    db.collection(CHAT_MESSAGES).document(first_message_id("c0", 1)).set(answer.to_dict())
    monkeypatch.setenv("ANTHROPIC_API_KEY", DEPLOYMENT)
    own_keys.delete_key(db, "u1", "anthropic")
    own_key.responses = [anthropic_text("Tides Explained")]
    before = db.collection(CHATS).document("c0").get().get("title")
    assert retitle(db, "c0", "u1", answer, question.content) is None
    assert own_key.requests == []
    assert db.collection(CHATS).document("c0").get().get("title") == before
    assert not db.collection(RATE_LIMITS).document("u1").get().exists


def test_a_retry_is_admitted_anew_and_keeps_to_the_key_it_was_admitted_on(db, own_key, monkeypatch):
    stub = make_chat(db, "c0", model=CLAUDE)  # posted on the deployment's key (u1 may use the AI)
    assert message(db, stub)["own_key"] is False
    own_key.responses = [httpx2.Response(401, json={"type": "error", "error": {"type": "authentication_error"}})]
    assert generate(db, stub) == "failed"
    retry_message(db, "u1", stub, limits=AIAccess(True, frozenset({"anthropic"})).admit(CLAUDE))
    assert message(db, stub)["own_key"] is True
    monkeypatch.setenv("ANTHROPIC_API_KEY", DEPLOYMENT)
    own_keys.delete_key(db, "u1", "anthropic")
    assert generate(db, stub) == "failed"
    assert message(db, stub)["error"] == "Your own Anthropic API key was removed before the answer started"
    assert len(own_key.requests) == 1
