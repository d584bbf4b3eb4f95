"""A user's own OpenAI-compatible endpoint through the real Functions, Auth and
Firestore emulators: a tiny compatible server (a thread of this test, on
127.0.0.1) lists its models and streams its answer; setApiKey stores it,
listModels offers its model as "model (via host)", and a chat on it is
answered with what the server streamed."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import CallError
from google.cloud.firestore import FieldFilter
from test_endpoints import add_cards, wait_for

from cardchat.schema.accounts import ANSWER_USAGE, USER_API_KEYS
from cardchat.schema.documents import CHAT_MESSAGES, Card

pytestmark = pytest.mark.functions

MODEL = "tiny-local"
KEY = "local-key-9876"
ANSWER = ["The moon's", " gravity pulls", " the oceans [1]."]


class CompatibleServer(ThreadingHTTPServer):
    """GET /v1/models and a streamed POST /v1/chat/completions, as Ollama's /v1 sends it (no usage chunk)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.asked: list[tuple[str, str, dict]] = []  # method, path, body
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: CompatibleServer

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.asked.append(("GET", self.path, {"authorization": self.headers.get("authorization")}))
        body = json.dumps({"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "me"}]}).encode()
        self._send(200, "application/json", [body])

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        self.server.asked.append(("POST", self.path, request))
        chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": MODEL}
        events = [{**chunk, "choices": [{"index": 0, "delta": {"content": d}, "finish_reason": None}]} for d in ANSWER]
        events.append({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        lines = [f"data: {json.dumps(e)}\n\n".encode() for e in events] + [b"data: [DONE]\n\n"]
        self._send(200, "text/event-stream", lines)

    def _send(self, status: int, kind: str, parts: list[bytes]) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(sum(len(p) for p in parts)))
        self.end_headers()
        for part in parts:
            self.wfile.write(part)
            self.wfile.flush()


@pytest.fixture
def server():
    srv = CompatibleServer()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize(
    "base_url",
    [
        "http://169.254.169.254/v1",
        "https://10.0.0.1/v1",
        "http://example.com/v1",
        "https://metadata.google.internal/v1",
    ],
)
def test_a_base_url_the_guard_refuses_is_invalid_argument_naming_base_url(call, sign_up, base_url):
    _, token = sign_up()
    with pytest.raises(CallError) as e:
        call("setApiKey", {"provider": "openai_compatible", "key": KEY, "base_url": base_url}, token)
    assert e.value.status == "INVALID_ARGUMENT" and e.value.message.startswith("base_url:")
    assert call("listApiKeys", {}, token) == {"keys": []}


def test_a_local_compatible_server_answers_a_chat_as_the_users_own_endpoint(call, app_db, sign_up, server):
    uid, token = sign_up()  # no AI use granted: their own endpoint is enough
    shown = call("setApiKey", {"provider": "openai_compatible", "key": KEY, "base_url": server.url}, token)
    host = server.url.split("//")[1].split("/")[0]
    assert shown["host"] == host and shown["last4"] == "9876"
    assert call("listApiKeys", {}, token)["keys"] == [shown]
    stored = json.dumps(app_db.collection(USER_API_KEYS).document(uid).get().to_dict(), default=str)
    assert KEY not in stored and server.url not in stored

    listed = {m["id"]: m for m in call("listModels", {}, token)["models"]}
    mine = listed[f"openai_compatible:{MODEL}"]
    assert mine["label"] == f"{MODEL} (via {host})" and mine["own_key"] is True and mine["priced"] is False
    assert ("GET", "/v1/models", {"authorization": f"Bearer {KEY}"}) in server.asked

    add_cards(app_db, uid, {"tides": Card("Why the sea has tides", "The moon's gravity pulls the oceans.", uid)})
    ask = {"card_ids": ["tides"], "initial_message": "Why are there tides?", "model": mine["id"]}
    chat_id = call("createChat", ask, token)["chat_id"]

    def answered():
        docs = app_db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", chat_id)).get()
        return [d.to_dict() for d in docs if d.get("role") == "assistant" and d.get("status") in ("complete", "error")]

    (answer,) = wait_for(answered, what="the answer from the local server")
    assert answer["status"] == "complete" and answer["content"] == "".join(ANSWER)
    posted = [body for method, path, body in server.asked if method == "POST"]
    assert posted and posted[0]["model"] == MODEL and posted[0]["stream"] is True
    assert posted[0]["messages"][-1] == {"role": "user", "content": "Why are there tides?"}

    usage = app_db.collection(ANSWER_USAGE).where(filter=FieldFilter("chat", "==", chat_id)).get()
    record = usage[0].to_dict()
    assert record["cost_usd"] is None  # no known price: unknown, never 0
    assert record["usage"]["estimated"] is True and record["usage"]["output_tokens"] > 0
