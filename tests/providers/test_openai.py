"""The OpenAI provider against Chat Completions' real chunk stream.

The SDK talks to an httpx2 MockTransport (provider_wire) replaying hand-built
`chat.completion.chunk` SSE (tests/fixtures/providers/openai_*).
"""

from __future__ import annotations

import json

import httpx2
import pytest

from cardchat import providers
from cardchat.llm.models import MODELS
from cardchat.providers.base import ProviderError
from cardchat.providers.openai import OpenAIProvider
from cardchat.schema.messages import Usage
from provider_wire import BACKGROUND, Wire, api_key, fixture_response, sse, until_failure

KEY = "sk-proj-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789ABCDEFwxyz"
SPEC = MODELS["gpt-4.1"]
MESSAGES = [
    {"role": "user", "content": "Why are there tides?"},
    {"role": "assistant", "content": "Because of the moon [1]."},
    {"role": "user", "content": "And twice a day?"},
]

key = api_key("OPENAI_API_KEY", KEY)


def test_streams_deltas_then_final_usage_chunk_with_system_message_first():
    wire = Wire(sse("openai_stream.sse"))
    items = list(OpenAIProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 700))

    assert items == [
        "Tides follow",
        " the moon [1].",
        Usage(input_tokens=1187, output_tokens=8, cached_input_tokens=1024),
    ]
    request = wire.requests[0]
    assert request.url.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = wire.body()
    assert body["model"] == "gpt-4.1"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 700
    assert body["messages"][0] == {"role": "system", "content": BACKGROUND}
    assert body["messages"][1:] == MESSAGES


def test_error_object_mid_stream_after_deltas():
    wire = Wire(sse("openai_error_midstream.sse"))
    got, err = until_failure(OpenAIProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 700))
    assert got == ["Partial", " answer"]
    assert err.kind == "provider"
    assert err.message == "OpenAI failed" and "server_error" in err.detail


def test_429_rate_limit_with_retry_after():
    wire = Wire(fixture_response(429, "openai_rate_limit_429.json", **{"retry-after": "2"}))
    with pytest.raises(ProviderError) as err:
        list(OpenAIProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 700))
    assert err.value.kind == "rate_limited"
    assert err.value.retry_after == 2.0
    assert len(wire.requests) == 1


def test_context_length_exceeded():
    wire = Wire(fixture_response(400, "openai_context_400.json"))
    with pytest.raises(ProviderError) as err:
        list(OpenAIProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 700))
    assert err.value.kind == "context_too_long"


def test_invalid_key_is_auth_and_masked_key_shape_is_removed():
    wire = Wire(fixture_response(401, "openai_invalid_key_401.json"))
    with pytest.raises(ProviderError) as err:
        list(OpenAIProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 700))
    assert err.value.kind == "auth"
    assert err.value.message == "OpenAI rejected the API key (HTTP 401)"
    assert "sk-proj" not in err.value.detail and "wxyz" not in err.value.detail


def test_500_echoing_the_prompt_is_scrubbed():
    # a provider once echoed the whole request in its error text
    body = {
        "error": {
            "message": f"Bad request body: {json.dumps({'messages': [{'role': 'system', 'content': BACKGROUND}]})}",
            "type": "server_error",
            "code": None,
        }
    }
    wire = Wire(httpx2.Response(500, json=body))
    with pytest.raises(ProviderError) as err:
        list(OpenAIProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 700))
    assert err.value.kind == "provider"
    assert err.value.message == "OpenAI failed (HTTP 500)"
    assert "launch code" not in err.value.detail and "gravity" not in err.value.detail


def test_registry_complete(monkeypatch):
    wire = Wire(sse("openai_stream.sse"))
    monkeypatch.setitem(providers.PROVIDERS, "openai", lambda: OpenAIProvider(wire.client()))
    assert providers.complete("gpt-4o-mini", MESSAGES, BACKGROUND, 50) == (
        "Tides follow the moon [1].",
        Usage(1187, 8, cached_input_tokens=1024),
    )
    assert wire.body()["model"] == "gpt-4o-mini"


def test_a_reasoning_model_gets_its_budget_as_max_completion_tokens(monkeypatch):
    # o-series models refuse max_tokens; their budget also covers hidden reasoning
    wire = Wire(sse("openai_stream.sse"))
    monkeypatch.setitem(providers.PROVIDERS, "openai", lambda: OpenAIProvider(wire.client()))
    text, _ = providers.complete("o3", MESSAGES, BACKGROUND, 500_000)
    assert text == "Tides follow the moon [1]."
    body = wire.body()
    assert body["model"] == "o3" and "max_tokens" not in body
    assert body["max_completion_tokens"] == 100_000  # clamped to the model's output limit
