"""The Gemini provider against streamGenerateContent's real SSE (alt=sse).

google-genai talks to an httpx2 MockTransport replaying hand-built chunks
(tests/fixtures/providers/gemini_*).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from cardchat import providers
from cardchat.models import MODELS
from cardchat.providers.base import ProviderError
from cardchat.providers.gemini import GeminiProvider
from cardchat.schema import Usage

FIXTURES = Path(__file__).parent / "fixtures" / "providers"
KEY = "AIzaSyTESTKEY0123456789abcdefghijklmnop"
BACKGROUND = (
    "[1] Tides\nThe moon's gravity pulls the oceans into two bulges that the earth rotates through.\n\n"
    "[2] Secret card\nThe launch code for the internal project is written on the blue whiteboard in room 4."
)
SPEC = MODELS["gemini-2.5-flash"]
MESSAGES = [
    {"role": "user", "content": "Why are there tides?"},
    {"role": "assistant", "content": "Because of the moon [1]."},
    {"role": "user", "content": "And twice a day?"},
]


class Wire:
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


def fixture_response(status: int, name: str) -> httpx2.Response:
    return httpx2.Response(
        status, headers={"content-type": "application/json"}, content=(FIXTURES / name).read_bytes()
    )


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    # the Developer API with our key, whatever else the machine has
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)


def test_streams_parts_then_usage_with_system_instruction():
    wire = Wire(sse("gemini_stream.sse"))
    items = list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))

    assert items[:-1] == ["Tides follow", " the moon [1]."]
    # thinking tokens are billed as output
    assert items[-1] == Usage(input_tokens=1190, output_tokens=8 + 45)
    request = wire.requests[0]
    assert request.url.path.endswith("/models/gemini-2.5-flash:streamGenerateContent")
    assert request.url.params["alt"] == "sse"
    assert request.headers["x-goog-api-key"] == KEY
    body = wire.body()
    assert body["systemInstruction"]["parts"] == [{"text": BACKGROUND}]
    assert body["generationConfig"]["maxOutputTokens"] == 2048
    assert "thinkingConfig" not in body["generationConfig"]
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Why are there tides?"}]},
        {"role": "model", "parts": [{"text": "Because of the moon [1]."}]},
        {"role": "user", "parts": [{"text": "And twice a day?"}]},
    ]


def test_short_task_turns_thinking_down_so_the_budget_is_text():
    wire = Wire(sse("gemini_stream.sse"))
    list(GeminiProvider(wire.client()).stream(MODELS["gemini-2.5-pro"], MESSAGES[:1], "", 40))
    config = wire.body()["generationConfig"]
    # protobuf JSON takes either spelling; this SDK version sends snake_case
    assert config["thinkingConfig"] in ({"thinkingBudget": 128}, {"thinking_budget": 128})
    assert config["maxOutputTokens"] == 40 + 128
    assert "systemInstruction" not in wire.body()


def test_error_chunk_mid_stream_after_deltas_is_overloaded():
    wire = Wire(sse("gemini_error_midstream.sse"))
    got: list = []
    with pytest.raises(ProviderError) as err:
        for item in GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048):
            got.append(item)
    assert got == ["Partial", " answer"]
    assert err.value.kind == "overloaded"
    assert "overloaded" in err.value.message.lower()


def test_429_resource_exhausted_reads_retry_info():
    wire = Wire(fixture_response(429, "gemini_rate_limit_429.json"))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "rate_limited"
    assert err.value.retry_after == 17.0
    assert len(wire.requests) == 1  # one attempt: the engine owns retry
    assert "{" not in err.value.message  # no JSON body in the readable text


def test_invalid_key_is_auth():
    wire = Wire(fixture_response(400, "gemini_invalid_key_400.json"))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "auth"
    assert KEY not in err.value.message


def test_input_too_long_is_context_too_long():
    wire = Wire(fixture_response(400, "gemini_context_400.json"))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "context_too_long"


def test_error_that_echoes_background_and_key_is_scrubbed():
    echo = {"error": {"code": 400, "status": "INVALID_ARGUMENT",
                      "message": f"Invalid request (key={KEY}): system_instruction {BACKGROUND}"}}
    wire = Wire(httpx2.Response(400, json=echo))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "bad_request"
    assert "AIza" not in err.value.message
    assert "gravity" not in err.value.message and "launch code" not in err.value.message


def test_connection_failure_is_network():
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    client = httpx2.Client(transport=httpx2.MockTransport(refuse))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(client).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "network"


def test_registry_complete(monkeypatch):
    wire = Wire(sse("gemini_stream.sse"))
    monkeypatch.setitem(providers.PROVIDERS, "gemini", lambda: GeminiProvider(wire.client()))
    assert providers.complete("gemini-2.5-flash", MESSAGES, BACKGROUND) == ("Tides follow the moon [1].", Usage(1190, 53))
