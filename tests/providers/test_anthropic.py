"""The Anthropic provider against the Messages API's real wire format.

The SDK talks to an httpx2 MockTransport (provider_wire) that replays
hand-built SSE streams (tests/fixtures/providers/anthropic_*); every request
the SDK sends is kept and checked.
"""

from __future__ import annotations

import json

import httpx2
import pytest

from cardchat import providers
from cardchat.llm.models import MODELS
from cardchat.providers.anthropic import AnthropicProvider
from cardchat.providers.base import ProviderError
from cardchat.schema.messages import Usage
from provider_wire import (
    BACKGROUND,
    FIXTURES,
    Wire,
    api_key,
    event_stream,
    fixture_response,
    refusing_client,
    sse,
    until_failure,
)

KEY = "sk-ant-api03-TESTKEY0123456789abcdefghijklmnopqrstuvwxyz"
SPEC = MODELS["claude-sonnet-4-6"]
MESSAGES = [{"role": "user", "content": "Why are there tides?"}]

key = api_key("ANTHROPIC_API_KEY", KEY)


def test_streams_text_deltas_then_usage_and_sends_background_as_cached_system():
    wire = Wire(sse("anthropic_stream.sse"))
    items = list(AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512))

    assert items[:-1] == ["Tides follow", " the moon [1]."]
    # input = uncached + cache writes + cache reads; output from message_delta
    assert items[-1] == Usage(input_tokens=1225, output_tokens=9, cache_write_tokens=1200)
    assert len(wire.requests) == 1
    request = wire.requests[0]
    assert request.url.path == "/v1/messages"
    # this SDK sends the key as a bearer token; older ones used x-api-key
    assert KEY in (request.headers.get("x-api-key"), request.headers.get("authorization", "").removeprefix("Bearer "))
    body = wire.body()
    assert body["model"] == "claude-sonnet-4-6"
    assert body["max_tokens"] == 512
    assert body["stream"] is True
    assert body["system"] == [{"type": "text", "text": BACKGROUND, "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == MESSAGES  # the background is not in the conversation
    assert BACKGROUND not in json.dumps(body["messages"])


def test_error_event_mid_stream_after_deltas_is_overloaded():
    wire = Wire(sse("anthropic_overloaded_midstream.sse"))
    got, err = until_failure(AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512))
    assert got == ["Partial", " answer"]
    assert err.kind == "overloaded"
    assert err.retryable
    assert err.message == "Anthropic is overloaded"  # an error event in a 200 stream: no status
    assert "Traceback" not in err.detail


def test_429_carries_retry_after_and_sdk_does_not_retry():
    wire = Wire(fixture_response(429, "anthropic_rate_limit_429.json", **{"retry-after": "17"}))
    with pytest.raises(ProviderError) as err:
        list(AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512))
    assert err.value.kind == "rate_limited"
    assert err.value.retry_after == 17.0
    assert err.value.message == "Anthropic rate limit reached (HTTP 429)"
    assert len(wire.requests) == 1  # max_retries=0: the engine owns retry


def test_prompt_too_long_is_context_too_long():
    wire = Wire(fixture_response(400, "anthropic_context_400.json"))
    with pytest.raises(ProviderError) as err:
        list(AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512))
    assert err.value.kind == "context_too_long"
    assert not err.value.retryable


def test_401_that_echoes_key_and_background_is_scrubbed():
    echo = {
        "type": "error",
        "error": {
            "type": "authentication_error",
            "message": f"invalid x-api-key {KEY} for request with system={BACKGROUND!r}",
        },
    }
    wire = Wire(httpx2.Response(401, json=echo))
    with pytest.raises(ProviderError) as err:
        list(AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512))
    assert err.value.kind == "auth"
    assert err.value.message == "Anthropic rejected the API key (HTTP 401)"
    # the provider's words are kept for the log only, and scrubbed there too
    assert "invalid x-api-key" in err.value.detail
    assert KEY not in err.value.detail and "TESTKEY" not in err.value.detail
    assert "launch code" not in err.value.detail and "gravity pulls" not in err.value.detail


def test_connection_failure_is_network():
    with pytest.raises(ProviderError) as err:
        list(AnthropicProvider(refusing_client()).stream(SPEC, MESSAGES, BACKGROUND, 512))
    assert err.value.kind == "network"


def test_stream_cut_before_message_stop_is_incomplete_and_retryable():
    cut = (FIXTURES / "anthropic_stream.sse").read_text().split("event: message_delta")[0]
    wire = Wire(event_stream(cut.encode()))
    got, err = until_failure(AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512))
    assert got == ["Tides follow", " the moon [1]."]
    assert err.kind == "incomplete" and err.retryable
    assert err.message == "Anthropic stopped before the answer was complete"


def test_registry_stream_uses_the_table_and_clamps_max_tokens(monkeypatch):
    wire = Wire(sse("anthropic_stream.sse"))
    monkeypatch.setitem(providers.PROVIDERS, "anthropic", lambda: AnthropicProvider(wire.client()))
    text, usage = providers.complete("claude-haiku-4-5", MESSAGES, BACKGROUND, max_tokens=10**9)
    assert text == "Tides follow the moon [1]."
    assert usage == Usage(1225, 9, cache_write_tokens=1200)
    body = wire.body()
    assert body["model"] == "claude-haiku-4-5"
    assert body["max_tokens"] == MODELS["claude-haiku-4-5"].max_output_tokens


def test_missing_key_is_not_configured_before_any_request(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ProviderError) as err:
        list(providers.stream("claude-sonnet-4-6", MESSAGES, BACKGROUND))
    assert err.value.kind == "not_configured"
    assert err.value.message == "Anthropic is not configured on this server"
