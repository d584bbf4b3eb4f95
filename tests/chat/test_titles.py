"""Chat titles: asked of the model with the question only, cleaned, and
falling back to the question's first words offline or on any failure."""

from __future__ import annotations

import httpx2

from cardchat import providers
from cardchat.chat.titles import clean_title, fallback_title, make_title
from cardchat.llm.models import OFFLINE_MODEL_ID
from cardchat.providers.anthropic import AnthropicProvider
from provider_wire import Wire, anthropic_text, api_key, sse

QUESTION = "Why do most   coasts get two high tides every single day, and not one?"

key = api_key("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")


def test_model_title_is_asked_with_the_question_only_and_cleaned(monkeypatch):
    wire = Wire(sse("anthropic_title.sse"))
    monkeypatch.setitem(providers.PROVIDERS, "anthropic", lambda: AnthropicProvider(wire.client()))
    title, used = make_title("claude-haiku-4-5", QUESTION)
    assert title == "Why Tides Come Twice a Day, Explained"
    assert used > 0  # counted against the owner's daily tokens (main.generateAnswer)
    body = wire.body()
    assert body["messages"] == [{"role": "user", "content": QUESTION}]
    assert "title" in body["system"][0]["text"] and "<card" not in body["system"][0]["text"]
    assert body["max_tokens"] <= 64


def test_provider_failure_falls_back_to_the_question(monkeypatch):
    wire = Wire(
        httpx2.Response(529, json={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    )
    monkeypatch.setitem(providers.PROVIDERS, "anthropic", lambda: AnthropicProvider(wire.client()))
    assert make_title("claude-sonnet-4-6", QUESTION) == ("Why do most coasts get two high", 0)
    assert len(wire.requests) == 1


def test_a_title_with_a_lone_surrogate_is_stored_well_formed(monkeypatch):
    wire = Wire(anthropic_text("Tides \ud83c", "\udf0a Twice a Day \udc00"))
    monkeypatch.setitem(providers.PROVIDERS, "anthropic", lambda: AnthropicProvider(wire.client()))
    title, _ = make_title("claude-haiku-4-5", QUESTION)
    assert title == "Tides 🌊 Twice a Day \ufffd"
    title.encode("utf-8")


def test_offline_and_unknown_models_never_call_a_provider():
    assert make_title(OFFLINE_MODEL_ID, QUESTION) == ("Why do most coasts get two high", 0)
    assert make_title("no-such-model", "“Quoted” question?") == ("Quoted question?", 0)


def test_missing_key_falls_back(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert make_title("claude-sonnet-4-6", "tides?") == ("tides?", 0)


def test_clean_title_limits():
    assert clean_title("**Title:** 'A b c d e f g h i'") == "A b c d e f g"
    assert len(clean_title("x" * 500)) == 80
    assert len(clean_title(" ".join(["abcdefghijklmnop"] * 7))) <= 80
    assert fallback_title("   \n ") == "New chat"
