"""The Gemini provider against streamGenerateContent's real SSE (alt=sse).

google-genai talks to an httpx2 MockTransport (provider_wire) replaying
hand-built chunks (tests/fixtures/providers/gemini_*).
"""

from __future__ import annotations

import httpx2
import pytest

from cardchat import providers
from cardchat.llm.models import MODELS
from cardchat.providers.base import ProviderError
from cardchat.providers.gemini import GeminiProvider
from cardchat.schema.messages import Usage
from provider_wire import BACKGROUND, Wire, api_key, fixture_response, refusing_client, sse, until_failure

KEY = "AIzaSyTESTKEY0123456789abcdefghijklmnop"
SPEC = MODELS["gemini-2.5-flash"]
MESSAGES = [
    {"role": "user", "content": "Why are there tides?"},
    {"role": "assistant", "content": "Because of the moon [1]."},
    {"role": "user", "content": "And twice a day?"},
]

# the Developer API with our key, whatever else the machine has
key = api_key("GEMINI_API_KEY", KEY, unset=("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"))


def test_streams_parts_then_usage_with_system_instruction():
    wire = Wire(sse("gemini_stream.sse"))
    items = list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))

    assert items[:-1] == ["Tides follow", " the moon [1]."]
    # thinking tokens are billed as output
    assert items[-1] == Usage(input_tokens=1190, output_tokens=8 + 45, cached_input_tokens=1024)
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
    got, err = until_failure(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert got == ["Partial", " answer"]
    assert err.kind == "overloaded"
    assert err.message.startswith("Gemini is overloaded")


def test_429_resource_exhausted_reads_retry_info():
    wire = Wire(fixture_response(429, "gemini_rate_limit_429.json"))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "rate_limited"
    assert err.value.retry_after == 17.0
    assert len(wire.requests) == 1  # one attempt: the engine owns retry
    assert err.value.message == "Gemini rate limit reached (HTTP 429)"
    assert "{" not in err.value.detail  # no JSON body in the log either


def test_invalid_key_is_auth():
    wire = Wire(fixture_response(400, "gemini_invalid_key_400.json"))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "auth"
    assert KEY not in err.value.message and KEY not in err.value.detail


def test_input_too_long_is_context_too_long():
    wire = Wire(fixture_response(400, "gemini_context_400.json"))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "context_too_long"


def test_error_that_echoes_background_and_key_is_scrubbed():
    echo = {
        "error": {
            "code": 400,
            "status": "INVALID_ARGUMENT",
            "message": f"Invalid request (key={KEY}): system_instruction {BACKGROUND}",
        }
    }
    wire = Wire(httpx2.Response(400, json=echo))
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(wire.client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "bad_request"
    assert err.value.message == "Gemini rejected the request (HTTP 400)"
    assert "AIza" not in err.value.detail
    assert "gravity" not in err.value.detail and "launch code" not in err.value.detail


def test_connection_failure_is_network():
    with pytest.raises(ProviderError) as err:
        list(GeminiProvider(refusing_client()).stream(SPEC, MESSAGES, BACKGROUND, 2048))
    assert err.value.kind == "network"


def test_registry_complete(monkeypatch):
    wire = Wire(sse("gemini_stream.sse"))
    monkeypatch.setitem(providers.PROVIDERS, "gemini", lambda: GeminiProvider(wire.client()))
    assert providers.complete("gemini-2.5-flash", MESSAGES, BACKGROUND) == (
        "Tides follow the moon [1].",
        Usage(1190, 53, cached_input_tokens=1024),
    )
