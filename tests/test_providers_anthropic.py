"""The Anthropic provider against the Messages API's real wire format.

The SDK talks to an httpx2 MockTransport that replays hand-built SSE streams
(tests/fixtures/providers/anthropic_*); every request the SDK sends is kept
and checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from cardchat import providers
from cardchat.models import MODELS
from cardchat.providers.anthropic import AnthropicProvider
from cardchat.providers.base import ProviderError
from cardchat.schema import Usage

FIXTURES = Path(__file__).parent / "fixtures" / "providers"
KEY = "sk-ant-api03-TESTKEY0123456789abcdefghijklmnopqrstuvwxyz"
BACKGROUND = (
    "[1] Tides\nThe moon's gravity pulls the oceans into two bulges that the earth rotates through.\n\n"
    "[2] Secret card\nThe launch code for the internal project is written on the blue whiteboard in room 4."
)
SPEC = MODELS["claude-sonnet-4-6"]
MESSAGES = [{"role": "user", "content": "Why are there tides?"}]


class Wire:
    """Answers each request with the next canned response and records it."""

    def __init__(self, *responses: httpx2.Response):
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return self.responses.pop(0)

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self))

    def body(self, i: int = 0) -> dict:
        return json.loads(self.requests[i].content)


def sse(name: str) -> httpx2.Response:
    return httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, content=(FIXTURES / name).read_bytes()
    )


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


def test_streams_text_deltas_then_usage_and_sends_background_as_cached_system():
    wire = Wire(sse("anthropic_stream.sse"))
    items = list(AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512))

    assert items[:-1] == ["Tides follow", " the moon [1]."]
    # input = uncached + cache writes + cache reads; output from message_delta
    assert items[-1] == Usage(input_tokens=1225, output_tokens=9)
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
    got: list = []
    with pytest.raises(ProviderError) as err:
        for item in AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512):
            got.append(item)
    assert got == ["Partial", " answer"]
    assert err.value.kind == "overloaded"
    assert err.value.retryable
    assert "overloaded" in err.value.message.lower()
    assert "Traceback" not in err.value.message


def test_429_carries_retry_after_and_sdk_does_not_retry():
    wire = Wire(
        httpx2.Response(
            429,
            headers={"retry-after": "17", "content-type": "application/json"},
            content=(FIXTURES / "anthropic_rate_limit_429.json").read_bytes(),
        )
    )
    with pytest.raises(ProviderError) as err:
        list(AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512))
    assert err.value.kind == "rate_limited"
    assert err.value.retry_after == 17.0
    assert "HTTP 429" in err.value.message
    assert len(wire.requests) == 1  # max_retries=0: the engine owns retry


def test_prompt_too_long_is_context_too_long():
    wire = Wire(
        httpx2.Response(400, headers={"content-type": "application/json"},
                        content=(FIXTURES / "anthropic_context_400.json").read_bytes())
    )
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
    assert KEY not in err.value.message and "TESTKEY" not in err.value.message
    assert "launch code" not in err.value.message and "gravity pulls" not in err.value.message


def test_connection_failure_is_network():
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    client = httpx2.Client(transport=httpx2.MockTransport(refuse))
    with pytest.raises(ProviderError) as err:
        list(AnthropicProvider(client).stream(SPEC, MESSAGES, BACKGROUND, 512))
    assert err.value.kind == "network"


def test_stream_cut_before_message_stop_is_network():
    cut = (FIXTURES / "anthropic_stream.sse").read_text().split("event: message_delta")[0]
    wire = Wire(httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=cut.encode()))
    got: list = []
    with pytest.raises(ProviderError) as err:
        for item in AnthropicProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 512):
            got.append(item)
    assert got == ["Tides follow", " the moon [1]."]
    assert err.value.kind == "network"


def test_registry_stream_uses_the_table_and_clamps_max_tokens(monkeypatch):
    wire = Wire(sse("anthropic_stream.sse"))
    monkeypatch.setitem(providers.PROVIDERS, "anthropic", lambda: AnthropicProvider(wire.client()))
    text, usage = providers.complete("claude-haiku-4-5", MESSAGES, BACKGROUND, max_tokens=10**9)
    assert text == "Tides follow the moon [1]."
    assert usage == Usage(1225, 9)
    body = wire.body()
    assert body["model"] == "claude-haiku-4-5"
    assert body["max_tokens"] == MODELS["claude-haiku-4-5"].max_output_tokens


def test_missing_key_is_auth_error_before_any_request(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ProviderError) as err:
        list(providers.stream("claude-sonnet-4-6", MESSAGES, BACKGROUND))
    assert err.value.kind == "auth"
