"""OpenAI-compatible endpoints against the chunk streams vLLM, OpenRouter and
Ollama's /v1 send (hand-built, tests/fixtures/providers/{vllm,openrouter,ollama}_*),
through the openai SDK on an httpx2 MockTransport (provider_wire)."""

from __future__ import annotations

import json

import httpx2
import pytest

from cardchat import providers
from cardchat.llm import compatible
from cardchat.llm.models import compatible_spec, cost_usd, spec_of
from cardchat.providers.compatible import CompatibleProvider, list_models
from cardchat.providers.headlines import all_headlines
from cardchat.schema.messages import Usage
from provider_wire import BACKGROUND, Wire, sse, until_failure

KEY = "gw-key-0123456789abcdefWXYZ"
ENDPOINT = compatible.Endpoint("gateway", "https://llm.example.com/v1", "GATEWAY_API_KEY")
MESSAGES = [{"role": "user", "content": "Why are there tides?"}]


@pytest.fixture(autouse=True)
def gateway(monkeypatch):
    setting = [{"id": "gateway", "base_url": ENDPOINT.base_url, "key_secret": ENDPOINT.key_env}]
    monkeypatch.setenv(compatible.SETTING, json.dumps(setting))
    monkeypatch.setenv(ENDPOINT.key_env, KEY)


def spec(model: str):
    return compatible_spec(model, ENDPOINT)


def test_ollama_without_a_usage_chunk_streams_and_leaves_the_count_to_us():
    wire = Wire(sse("ollama_no_usage.sse"))
    items = list(CompatibleProvider(wire.client()).stream(spec("llama3.1:8b"), MESSAGES, BACKGROUND, 500))
    assert items == ["Tides follow", " the moon [1].", Usage()]
    request = wire.requests[0]
    assert str(request.url) == "https://llm.example.com/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = wire.body()
    assert body["model"] == "llama3.1:8b"  # the endpoint's name, not our id
    assert body["stream"] is True and body["max_tokens"] == 500
    assert body["messages"][0] == {"role": "system", "content": BACKGROUND}


def test_vllm_reasoning_content_is_never_part_of_the_answer():
    wire = Wire(sse("vllm_reasoning.sse"))
    items = list(CompatibleProvider(wire.client()).stream(spec("Qwen/Qwen3-8B"), MESSAGES, BACKGROUND, 500))
    assert items == ["Tides follow", " the moon [1].", Usage(input_tokens=210, output_tokens=26)]
    assert not any("SECRET-REASONING" in str(i) for i in items)


def test_openrouter_error_chunk_mid_stream_is_a_fixed_headline():
    wire = Wire(sse("openrouter_error_midstream.sse"))
    model = spec("meta-llama/llama-3.3-70b-instruct")
    got, err = until_failure(CompatibleProvider(wire.client()).stream(model, MESSAGES, BACKGROUND, 500))
    assert got == ["Partial", " answer"]
    assert err.kind == "provider" and err.retryable
    assert err.message == "OpenAI-compatible endpoint failed"
    assert err.message in all_headlines()
    assert "Provider returned error" in err.detail


def test_through_providers_stream_with_a_users_own_endpoint(monkeypatch):
    monkeypatch.setenv("FUNCTIONS_EMULATOR", "true")  # a local server: allowed under the emulators only
    wire = Wire(sse("ollama_no_usage.sse"))
    monkeypatch.setitem(providers.PROVIDERS, compatible.OWN, lambda: CompatibleProvider(wire.client()))
    model_id = compatible.model_id("llama3.1:8b")
    got = list(providers.stream(model_id, MESSAGES, BACKGROUND, api_key="own", base_url="http://127.0.0.1:9/v1"))
    assert got[-1] == Usage() and "".join(x for x in got if isinstance(x, str)) == "Tides follow the moon [1]."
    assert str(wire.requests[0].url) == "http://127.0.0.1:9/v1/chat/completions"
    assert wire.requests[0].headers["authorization"] == "Bearer own"


def test_a_users_own_endpoint_is_checked_again_at_the_call(monkeypatch):
    monkeypatch.delenv("FUNCTIONS_EMULATOR", raising=False)
    wire = Wire(sse("ollama_no_usage.sse"))
    monkeypatch.setitem(providers.PROVIDERS, compatible.OWN, lambda: CompatibleProvider(wire.client()))
    model_id = compatible.model_id("llama3.1:8b")
    _, err = until_failure(
        providers.stream(model_id, MESSAGES, BACKGROUND, api_key="own", base_url="http://127.0.0.1:9/v1")
    )
    assert err.kind == "bad_request" and err.message.startswith("Your own OpenAI-compatible endpoint API key failed")
    assert wire.requests == []


def test_models_come_from_get_models_and_are_cached():
    listed = {"object": "list", "data": [{"id": "llama3.1:8b", "object": "model"}, {"id": "qwen2.5:7b"}]}
    wire = Wire(httpx2.Response(200, json=listed))
    url = "https://cache.example.com/v1"
    assert list_models(url, KEY, compatible.DEPLOYED, wire.client()) == ["llama3.1:8b", "qwen2.5:7b"]
    assert list_models(url, KEY, compatible.DEPLOYED, wire.client()) == ["llama3.1:8b", "qwen2.5:7b"]
    assert len(wire.requests) == 1 and str(wire.requests[0].url) == f"{url}/models"


def test_ids_labels_and_prices():
    own = compatible_spec("llama3.1:8b", base_url="http://127.0.0.1:11434/v1")
    assert own.label == "llama3.1:8b (via 127.0.0.1:11434)"
    assert own.public()["priced"] is False and "base_url" not in own.public()
    deployed = spec_of("compatible:gateway:meta-llama/llama-3.3-70b-instruct")
    assert deployed is not None and deployed.label == "meta-llama/llama-3.3-70b-instruct (via llm.example.com)"
    assert spec_of("compatible:nowhere:x") is None
    assert cost_usd(deployed.id, 1000, 100) is None  # unknown, never 0
    assert cost_usd("gpt-4.1", 1000, 100) is not None


def test_a_listed_endpoints_key_is_bound_as_a_secret_and_a_bad_setting_stops_the_deploy():
    from cardchat.llm.secret_keys import bound_secrets

    setting = json.dumps([{"id": "gateway", "base_url": "https://llm.example.com/v1", "key_secret": "GATEWAY_API_KEY"}])
    assert "GATEWAY_API_KEY" in bound_secrets({compatible.SETTING: setting})
    assert "GATEWAY_API_KEY" not in bound_secrets({})
    for bad in ("{", '{"id": "x"}', '[{"id": "Bad Id", "base_url": "https://a/v1", "key_secret": "K"}]'):
        with pytest.raises(ValueError, match=compatible.SETTING):
            compatible.endpoints({compatible.SETTING: bad})


def test_the_deployments_named_models_are_offered_by_host_without_a_price(monkeypatch):
    from cardchat.access.model_list import listing

    setting = [{**{"id": "gateway", "base_url": ENDPOINT.base_url, "key_secret": ENDPOINT.key_env}, "models": ["m-1"]}]
    monkeypatch.setenv(compatible.SETTING, json.dumps(setting))
    offered = {m["id"]: m for m in listing(None, None, frozenset())["models"]}  # type: ignore[arg-type]
    assert offered["compatible:gateway:m-1"]["label"] == "m-1 (via llm.example.com)"
    assert offered["compatible:gateway:m-1"]["priced"] is False and "base_url" not in offered["compatible:gateway:m-1"]
    monkeypatch.delenv(ENDPOINT.key_env)
    assert "compatible:gateway:m-1" not in {m["id"] for m in listing(None, None, frozenset())["models"]}  # type: ignore[arg-type]
