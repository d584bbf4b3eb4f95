"""A user's own API key through each vendor's SDK, against its real wire
format (provider_wire): the key sent is theirs, with no deployment key at
all, and a failure says it is their key that failed, without the key."""

from __future__ import annotations

import pytest

from cardchat import providers
from cardchat.providers.anthropic import AnthropicProvider
from cardchat.providers.gemini import GeminiProvider
from cardchat.providers.headlines import all_headlines
from cardchat.providers.openai import OpenAIProvider
from cardchat.schema.messages import Usage
from provider_wire import BACKGROUND, Wire, fixture_response, sse, until_failure

MESSAGES = [{"role": "user", "content": "Why are there tides?"}]
# (model, provider class, the deployment's key variable, an own key, the header that carries it, its value,
#  a stream fixture, an invalid-key fixture and its status)
CASES = {
    "anthropic": (
        "claude-sonnet-4-6",
        AnthropicProvider,
        "ANTHROPIC_API_KEY",
        "sk-ant-api03-OWNKEY0123456789abcdefghijklmnopqrstuvwxyz",
        "authorization",
        "Bearer {}",
        "anthropic_stream.sse",
        "anthropic_invalid_key_401.json",
        401,
    ),
    "openai": (
        "gpt-4.1",
        OpenAIProvider,
        "OPENAI_API_KEY",
        "sk-proj-OWNKEY0123456789abcdefghijklmnop",
        "authorization",
        "Bearer {}",
        "openai_stream.sse",
        "openai_invalid_key_401.json",
        401,
    ),
    "gemini": (
        "gemini-2.5-flash",
        GeminiProvider,
        "GEMINI_API_KEY",
        "AIzaSyOWNKEY0123456789abcdefghijklmnopq",
        "x-goog-api-key",
        "{}",
        "gemini_stream.sse",
        "gemini_invalid_key_400.json",
        400,
    ),
}
NAMES = {"anthropic": "Anthropic", "openai": "OpenAI", "gemini": "Gemini"}


@pytest.mark.parametrize("provider", CASES)
def test_an_own_key_is_the_one_sent_and_its_failure_is_named_as_the_users(provider, monkeypatch):
    model, cls, env, own, header, shape, stream, invalid, status = CASES[provider]
    monkeypatch.delenv(env, raising=False)  # the deployment holds no key for this provider
    wire = Wire(sse(stream), fixture_response(status, invalid))
    monkeypatch.setitem(providers.PROVIDERS, provider, lambda: cls(wire.client()))

    got = list(providers.stream(model, MESSAGES, BACKGROUND, api_key=own))
    assert "".join(x for x in got if isinstance(x, str)) and isinstance(got[-1], Usage)
    assert wire.requests[0].headers[header] == shape.format(own)

    _, err = until_failure(providers.stream(model, MESSAGES, BACKGROUND, api_key=own))
    name = NAMES[provider]
    assert err.message == f"Your own {name} API key failed: {name} rejected the API key (HTTP {status})"
    assert err.message in all_headlines() and err.kind == "auth"
    assert own not in err.detail and "OWNKEY" not in err.detail and "OWNKEY" not in str(err)


@pytest.mark.parametrize("provider", CASES)
def test_without_an_own_key_a_provider_the_deployment_has_no_key_for_is_not_configured(provider, monkeypatch):
    model, _, env, *_ = CASES[provider]
    monkeypatch.delenv(env, raising=False)
    _, err = until_failure(providers.stream(model, MESSAGES, BACKGROUND))
    assert err.kind == "not_configured" and "own" not in err.message
