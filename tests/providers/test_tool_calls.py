"""The search_cards tool through each provider's real SDK and wire format: Anthropic's
`tool_use` block with its input in `input_json_delta` pieces, Chat Completions' `tool_calls`
with their arguments in pieces (OpenAI, and a compatible endpoint), Gemini's `functionCall`
part with its thought signature. Each stream also reaches the SDK a few bytes at a time, so
an event is split across network chunks too. The call is run, its result goes back in the
vendor's format, the answer that follows is the text; nothing of the call is ever text."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import httpx2
import pytest

from cardchat.llm import compatible
from cardchat.llm.models import MODELS, compatible_spec
from cardchat.providers import tools
from cardchat.providers.anthropic import AnthropicProvider
from cardchat.providers.compatible import CompatibleProvider
from cardchat.providers.gemini import GeminiProvider
from cardchat.providers.openai import OpenAIProvider
from cardchat.schema.messages import Usage
from provider_wire import BACKGROUND, FIXTURES, Wire, anthropic_text, event_stream, held_after, sse

MESSAGES = [{"role": "user", "content": "When are tides strongest?"}]
FOUND = "[3] Spring tides\nAt new and full moon the sun and moon pull together."
ENDPOINT = compatible.Endpoint("gateway", "https://llm.example.com/v1", "GATEWAY_API_KEY")


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    for env in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", ENDPOINT.key_env):
        monkeypatch.setenv(env, "test-key-0123456789")
    for env in ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(env, raising=False)
    setting = [{"id": "gateway", "base_url": ENDPOINT.base_url, "key_secret": ENDPOINT.key_env}]
    monkeypatch.setenv(compatible.SETTING, json.dumps(setting))


class Searches:
    """The tool as the engine gives it: records each query, answers with FOUND."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def __call__(self, query: str) -> str:
        self.queries.append(query)
        return FOUND


def in_pieces(name: str, size: int = 7) -> httpx2.Response:
    """A fixture stream sent `size` bytes at a time: its events split across reads."""
    data = (FIXTURES / name).read_bytes()

    def body() -> Iterator[bytes]:
        for i in range(0, len(data), size):
            yield data[i : i + size]

    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())


def openai_text(text: str) -> httpx2.Response:
    chunk = {"id": "c2", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    events = [
        {**chunk, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**chunk, "choices": [], "usage": {"prompt_tokens": 1300, "completion_tokens": 7, "total_tokens": 1307}},
    ]
    return event_stream(("".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n").encode())


def gemini_text(text: str) -> httpx2.Response:
    event = {
        "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1300, "candidatesTokenCount": 7, "totalTokenCount": 1307},
    }
    return event_stream(f"data: {json.dumps(event)}\n\n".encode())


def test_anthropic_tool_use_split_in_input_json_deltas_is_run_and_answered():
    wire = Wire(in_pieces("anthropic_tool_use.sse"), anthropic_text("At spring tides [3]."))
    search = Searches()
    items = list(
        AnthropicProvider(wire.client()).stream(MODELS["claude-sonnet-4-6"], MESSAGES, BACKGROUND, 900, search)
    )

    assert search.queries == ["spring tides"]
    # the sentence announcing the search (it names the query) is never answer text
    assert items == ["At spring tides [3].", Usage(1210 + 1024 + 25, 41 + 9, cached_input_tokens=1024)]
    first, second = wire.body(0), wire.body(1)
    for body in (first, second):
        assert body["tools"] == [
            {"name": "search_cards", "description": tools.DESCRIPTION, "input_schema": tools.PARAMETERS}
        ]
    call_id = "toolu_01A09q90qw90lq917835lq9"
    assert second["messages"][:1] == MESSAGES
    assert second["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "I'll search your cards for spring tides."},
            {"type": "tool_use", "id": call_id, "name": "search_cards", "input": {"query": "spring tides"}},
        ],
    }
    assert second["messages"][2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call_id, "content": FOUND}],
    }


@pytest.mark.parametrize("compatible_endpoint", [False, True], ids=["openai", "compatible"])
def test_chat_completions_tool_calls_split_in_argument_pieces_are_run_and_answered(compatible_endpoint):
    wire = Wire(in_pieces("openai_tool_calls.sse"), openai_text("At spring tides [3]."))
    search = Searches()
    if compatible_endpoint:
        provider, spec = CompatibleProvider(wire.client()), compatible_spec("llama3.1:8b", ENDPOINT)
    else:
        provider, spec = OpenAIProvider(wire.client()), MODELS["gpt-4.1"]
    items = list(provider.stream(spec, MESSAGES, BACKGROUND, 900, search))

    assert search.queries == ["spring tides"]
    assert items == ["At spring tides [3].", Usage(1187 + 1300, 18 + 7, cached_input_tokens=1024)]
    first, second = wire.body(0), wire.body(1)
    function = {"name": "search_cards", "description": tools.DESCRIPTION, "parameters": tools.PARAMETERS}
    assert first["tools"] == second["tools"] == [{"type": "function", "function": function}]
    call = {"id": "call_Xq1Bv7Ck2v", "type": "function"}
    assert second["messages"][2:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{**call, "function": {"name": "search_cards", "arguments": '{"query": "spring tides"}'}}],
        },
        {"role": "tool", "tool_call_id": "call_Xq1Bv7Ck2v", "content": FOUND},
    ]


def test_gemini_function_call_goes_back_with_its_thought_signature_and_is_answered():
    wire = Wire(in_pieces("gemini_function_call.sse"), gemini_text("At spring tides [3]."))
    search = Searches()
    items = list(GeminiProvider(wire.client()).stream(MODELS["gemini-2.5-flash"], MESSAGES, BACKGROUND, 2048, search))

    assert search.queries == ["spring tides"]
    assert items == ["At spring tides [3].", Usage(1190 + 1300, 6 + 30 + 7)]
    first, second = wire.body(0), wire.body(1)
    declared = first["tools"][0]["functionDeclarations"][0]
    # the SDK sends the schema under the proto field's own name, which the API reads as its JSON name
    assert (declared["name"], declared["parameters_json_schema"]) == ("search_cards", tools.PARAMETERS)
    assert second["contents"][1] == {
        "role": "model",
        "parts": [
            {
                "functionCall": {"name": "search_cards", "args": {"query": "spring tides"}},
                "thoughtSignature": "CiQBVKhc7lWxRk0sYXQ=",
            }
        ],
    }
    assert second["contents"][2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "search_cards", "response": {"result": FOUND}}}],
    }


def test_a_model_that_never_stops_calling_is_not_called_past_the_rounds():
    wire = Wire(*(sse("anthropic_tool_use.sse") for _ in range(tools.MAX_ROUNDS + 1)))
    search = Searches()
    items = list(
        AnthropicProvider(wire.client()).stream(MODELS["claude-sonnet-4-6"], MESSAGES, BACKGROUND, 900, search)
    )
    assert len(wire.requests) == tools.MAX_ROUNDS + 1 and len(search.queries) == tools.MAX_ROUNDS
    assert [i for i in items if isinstance(i, str)] == []  # nothing of the calls is text


def test_with_the_tool_offered_text_is_released_at_its_first_citation_not_at_the_rounds_end():
    release = threading.Event()
    # the stream sends its first two text deltas, then nothing until released (or the bound, a failure)
    held = held_after(anthropic_text("Spring tides come ", "at full moon [1].", " Neap tides ..."), 4, release)
    wire = Wire(held)
    stream = AnthropicProvider(wire.client()).stream(MODELS["claude-sonnet-4-6"], MESSAGES, BACKGROUND, 900, Searches())
    bound = threading.Timer(30, release.set)
    bound.start()
    try:
        assert next(stream) == "Spring tides come at full moon [1]."
        assert not release.is_set()  # it came while the rest of the round was still unsent
    finally:
        release.set()
        bound.cancel()
    assert list(stream) == [" Neap tides ...", Usage(25, 9)]


def test_a_compatible_server_that_refuses_tools_is_asked_again_without_them():
    refused = httpx2.Response(
        400, json={"error": {"message": "tools param requires --jinja flag", "type": "invalid_request_error"}}
    )
    wire = Wire(refused, sse("ollama_no_usage.sse"))
    search = Searches()
    items = list(
        CompatibleProvider(wire.client()).stream(
            compatible_spec("llama3.1:8b", ENDPOINT), MESSAGES, BACKGROUND, 900, search
        )
    )
    assert items == ["Tides follow", " the moon [1].", Usage()]
    assert "tools" in wire.body(0) and "tools" not in wire.body(1)
    assert search.queries == []


def test_without_the_tool_nothing_is_declared_and_text_streams_at_once():
    wire = Wire(anthropic_text("Tides ", "follow the moon [1]."))
    items = list(AnthropicProvider(wire.client()).stream(MODELS["claude-sonnet-4-6"], MESSAGES, BACKGROUND, 900))
    assert items[:2] == ["Tides ", "follow the moon [1]."]
    assert "tools" not in wire.body()
