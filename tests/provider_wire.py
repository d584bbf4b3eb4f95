"""Test support for the provider tests: the vendors' SDKs talk to an httpx2
MockTransport that replays responses in their real wire format (hand-built
files under tests/fixtures/providers) and keeps every request they send.

Imported by the tests as `from provider_wire import ...` (pytest puts tests/
on sys.path, as it does for conftest).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from cardchat.providers.base import ProviderError

FIXTURES = Path(__file__).parent / "fixtures" / "providers"
#: A chat's hidden background: a card worth citing and one whose words must
#: never surface in an error message.
BACKGROUND = (
    "[1] Tides\nThe moon's gravity pulls the oceans into two bulges that the earth rotates through.\n\n"
    "[2] Secret card\nThe launch code for the internal project is written on the blue whiteboard in room 4."
)


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


def event_stream(content: bytes) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=content)


def held_after(response: httpx2.Response, events: int, release: threading.Event) -> httpx2.Response:
    """`response` (a server-sent-event stream) sending its first `events` events, then
    nothing more until `release` is set: the provider is still answering meanwhile."""
    parts = response.content.split(b"\n\n")
    head, tail = b"".join(p + b"\n\n" for p in parts[:events]), b"\n\n".join(parts[events:])

    def body() -> Iterator[bytes]:
        yield head
        if not release.wait(60):
            raise AssertionError("the held stream was never released")
        yield tail

    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())


def sse(name: str) -> httpx2.Response:
    """A 200 server-sent-event stream from a fixture file."""
    return event_stream((FIXTURES / name).read_bytes())


def anthropic_text(*deltas: str) -> httpx2.Response:
    """A complete Anthropic Messages stream (server-sent events) whose text
    arrives as `deltas`, built by hand for one case."""
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_01",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "claude-sonnet-4-6",
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 25, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
    ]
    events += [
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}})
        for d in deltas
    ]
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    wire = "".join(f"event: {name}\ndata: {json.dumps(data, ensure_ascii=True)}\n\n" for name, data in events)
    return event_stream(wire.encode())


def anthropic_tool_use(
    query: str, call_id: str = "toolu_01", said: str = "I'll search your cards for that."
) -> httpx2.Response:
    """A complete Anthropic Messages stream that says `said`, then calls search_cards with `query`,
    its input JSON split across input_json_delta events as the API streams it."""
    arguments = json.dumps({"query": query})
    cut = len(arguments) // 2
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_tool",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "claude-sonnet-4-6",
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 40, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": said}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": call_id, "name": "search_cards", "input": {}},
            },
        ),
    ]
    events += [
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": piece}},
        )
        for piece in (arguments[:cut], arguments[cut:])
    ]
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    wire = "".join(f"event: {name}\ndata: {json.dumps(data, ensure_ascii=True)}\n\n" for name, data in events)
    return event_stream(wire.encode())


def fixture_response(status: int, name: str, **headers: str) -> httpx2.Response:
    """A JSON error body from a fixture file, with extra headers (retry-after)."""
    return httpx2.Response(
        status, headers={"content-type": "application/json", **headers}, content=(FIXTURES / name).read_bytes()
    )


def refusing_client() -> httpx2.Client:
    """A client whose every connection is refused."""

    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    return httpx2.Client(transport=httpx2.MockTransport(refuse))


def until_failure(stream: Iterable[Any]) -> tuple[list[Any], ProviderError]:
    """What a stream yielded before it raised; fails the test if it does not raise."""
    got: list[Any] = []
    with pytest.raises(ProviderError) as err:
        for item in stream:
            got.append(item)
    return got, err.value


def api_key(env: str, value: str, *, unset: tuple[str, ...] = ()) -> Any:
    """An autouse fixture that sets a provider's key for every test of the
    module (bind it to a module-level name) and removes variables that would
    send the SDK elsewhere."""

    @pytest.fixture(autouse=True)
    def key(monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(env, value)
        for name in unset:
            monkeypatch.delenv(name, raising=False)

    return key
