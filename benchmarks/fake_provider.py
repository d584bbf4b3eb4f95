"""A local stand-in for Anthropic's Messages API, on loopback, for the
pipeline benchmark: it answers `POST /v1/messages` with `stream: true` in the
real server-sent-event wire format (as recorded in
tests/fixtures/providers/anthropic_stream.sse), sends the first text token
FIRST_TOKEN_S after the request arrived, then one token every TOKEN_S.

It records when each request arrived and when its first token was written,
so the benchmark can split the pipeline into stages. Only the SDK that the
functions use talks to it (ANTHROPIC_BASE_URL points there).

Offered the search_cards tool (a chat with look_further on) and not yet sent
a result, it calls the tool once instead, with SEARCH_QUERY, FIRST_TOKEN_S
after the request, as a model that searches first does; the request that
brings the result back is answered as any other."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FIRST_TOKEN_S = 0.3
TOKEN_S = 0.02
WORDS = "Tides follow the moon [1]: its gravity pulls the oceans into two bulges.".split(" ")
#: What the fake model searches the chat's cards for when it is offered the tool.
SEARCH_QUERY = "undo a rebase"


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


#: The stream's first event: one message, as the Messages API opens it.
_MESSAGE_START = _event(
    "message_start",
    {
        "type": "message_start",
        "message": {
            "id": "msg_bench",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-bench",
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 25, "output_tokens": 1},
        },
    },
)


class FakeAnthropic:
    def __init__(
        self,
        port: int,
        first_token_s: float = FIRST_TOKEN_S,
        words: list[str] = WORDS,
        *,
        words_for: Callable[[dict[str, Any]], list[str]] | None = None,
        hold: threading.Barrier | None = None,
    ) -> None:
        """`words_for(request body)`: an answer of its own per request; `hold`: each stream waits there
        after its first token, so a test sees every answer in flight at once."""
        self.first_token_s = first_token_s
        self.words_for = words_for or (lambda _body: words)
        self.hold = hold
        #: (arrived, first token written) per request answered with text, time.time() seconds.
        self.calls: list[tuple[float, float]] = []
        #: (arrived, tool call written) per request answered with a search_cards call.
        self.searches: list[tuple[float, float]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                arrived = time.time()
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if not self.path.startswith("/v1/messages") or not body.get("stream"):
                    self.send_error(404)
                    return
                if body.get("tools") and not _has_tool_result(body):
                    fake._search(self, arrived)
                else:
                    fake._stream(self, arrived, fake.words_for(body))

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        """The port it listens on (the one asked for, or the system's pick for 0)."""
        return int(self.server.server_address[1])

    def __enter__(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _search(self, h: BaseHTTPRequestHandler, arrived: float) -> None:
        _open(h)
        time.sleep(max(0.0, arrived + self.first_token_s - time.time()))
        use = {"type": "tool_use", "id": "toolu_bench", "name": "search_cards", "input": {}}
        h.wfile.write(_event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": use}))
        arguments = json.dumps({"query": SEARCH_QUERY})
        for piece in (arguments[:7], arguments[7:]):
            delta = {"type": "input_json_delta", "partial_json": piece}
            h.wfile.write(_event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}))
        h.wfile.write(_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        h.wfile.flush()
        sent = time.time()
        h.wfile.write(
            _event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                    "usage": {"output_tokens": 12},
                },
            )
        )
        h.wfile.write(_event("message_stop", {"type": "message_stop"}))
        h.wfile.flush()
        self.searches.append((arrived, sent))

    def _stream(self, h: BaseHTTPRequestHandler, arrived: float, words: list[str]) -> None:
        _open(h)
        h.wfile.write(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            )
        )
        h.wfile.flush()
        time.sleep(max(0.0, arrived + self.first_token_s - time.time()))
        first = None
        for i, word in enumerate(words):
            text = (" " if i else "") + word
            h.wfile.write(
                _event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
                )
            )
            h.wfile.flush()
            if first is None:
                first = time.time()
                if self.hold is not None:
                    self.hold.wait()
            time.sleep(TOKEN_S)
        h.wfile.write(_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        h.wfile.write(
            _event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": len(words)},
                },
            )
        )
        h.wfile.write(_event("message_stop", {"type": "message_stop"}))
        h.wfile.flush()
        self.calls.append((arrived, first or time.time()))


def _open(h: BaseHTTPRequestHandler) -> None:
    """The stream's headers and its opening event."""
    h.send_response(200)
    h.send_header("content-type", "text/event-stream")
    h.send_header("cache-control", "no-cache")
    h.send_header("connection", "close")
    h.end_headers()
    h.wfile.write(_MESSAGE_START)


def _has_tool_result(body: dict[str, Any]) -> bool:
    return any(
        isinstance(m.get("content"), list) and any(b.get("type") == "tool_result" for b in m["content"])
        for m in body.get("messages") or []
    )
