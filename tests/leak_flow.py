"""The richest chat the leak hunt can build through the real callables (tests/access/test_leak_hunt.py):
the owner's private and public cards and cards shared with them, follow-ups that add cards, a pin, an
exclusion, an edited card re-packed, a withdrawn card, a branch, a continuation by another user, a
chat made from a saved collection with instructions, and a chat whose model searched the owner's cards
while it answered (look further, on the owner's own compatible endpoint: SearchingServer) and cites one
card it found; shared with a viewer and published."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.cloud.firestore import FieldFilter
from test_endpoints import wait_for

from cardchat.schema.accounts import CARD_SOURCES, CardSources
from cardchat.schema.documents import CARDS, CHAT_MESSAGES, CHAT_PRIVATE, CHATS, USERS, Card, UserDoc, now
from cardchat.schema.saved_collections import SAVED_COLLECTIONS, SavedCollection

MODEL = "offline-extractive"
TAG = "quayside-ledger-tag"
INSTRUCTIONS = "Speak as the harbourmaster of Port Quillon and sign off with the word Ahoy-zebra."
GIT_EDITED = "Rewriting history: git rebase --interactive squashes fixup commits before a merge request."


@dataclass
class Person:
    uid: str
    token: str
    email: str


@dataclass
class Flow:
    people: dict[str, Person]
    deck: dict[str, Card]  # card id -> the card as first written
    texts: dict[str, list[str]] = field(default_factory=dict)  # card id -> every text it has held
    chats: dict[str, str] = field(default_factory=dict)  # role (source, branch, continued, saved) -> chat id
    answers: list[str] = field(default_factory=list)  # ids of every assistant message of the flow
    found: list[str] = field(default_factory=list)  # the search results the searching model was sent


def answered(db, chat_id: str) -> list[str]:
    """Waits until every assistant message of the chat is complete or failed; their ids."""

    def done():
        docs = db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", chat_id)).get()
        answers = [d for d in docs if d.get("role") == "assistant"]
        if answers and all(d.get("status") in ("complete", "failed") for d in answers):
            return [d.id for d in answers]
        return None

    return wait_for(done, timeout=240, what=f"the answers of {chat_id}")


def people(db, sign_up) -> dict[str, Person]:
    """The owner (no display name), a sharer, a viewer, a continuing user, a stranger."""
    out = {}
    for role in ("owner", "sharer", "viewer", "continuer", "stranger"):
        email = f"{role}-{time.time_ns() % 10**9}@cardchat.test"
        uid, token = sign_up(email)
        out[role] = Person(uid, token, email)
    for role in ("owner", "continuer"):
        db.collection(USERS).document(out[role].uid).set(UserDoc(may_use_ai=True).to_dict())
    return out


def deck(who: dict[str, Person]) -> dict[str, Card]:
    o, s = who["owner"].uid, who["sharer"].uid
    return {
        f"{o}_tides": Card(
            "Why the sea has tides",
            "The moon's gravity pulls the oceans into two tidal bulges, so coasts see two high tides a day.",
            o,
        ),
        f"{o}_bread": Card(
            "Sourdough starter care",
            "Feed the starter flour and water daily and discard half of it before each feeding.",
            o,
        ),
        f"{o}_git": Card(
            "Undoing a git commit",
            "git reset --soft HEAD~1 moves the branch back one commit and keeps the changes staged.",
            o,
        ),
        f"{o}_bikes": Card(
            "Bicycle chain wear",
            "Measure chain stretch with a gauge and replace the chain at half a percent of wear.",
            o,
            "public",
        ),
        f"{o}_harbour": Card(
            "Harbour opening hours",
            "The harbour of Port Quillon opens its lock gates at dawn and closes them at dusk.",
            o,
            tags=[TAG],
        ),
        f"{o}_moorings": Card(
            "Mooring fees",
            "Visiting yachts pay the mooring fee at the kiosk beside the fuel dock every evening.",
            o,
            tags=[TAG],
        ),
        f"{s}_vault": Card(
            "Vault combination",
            "The vault combination is forty two seventeen ninety and only the night porter knows it.",
            s,
            viewers=[o],
        ),
        f"{s}_orchids": Card(
            "Orchid watering",
            "Water orchids once a week by soaking the bark for ten minutes, then drain them fully.",
            s,
            viewers=[o],
        ),
    }


def write_cards(db, cards: dict[str, Card]) -> None:
    batch = db.batch()
    for cid, card in cards.items():
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
    batch.commit()


def source_chat(db, call, flow: Flow) -> str:
    """createChat over mine and shared, then a follow-up about a card added since."""
    owner = flow.people["owner"]
    # the owner accepted the sharer: only then do their shared cards join "shared" (and its packing)
    sources = CardSources(owner.uid, accepted_sharers=[flow.people["sharer"].uid])
    db.collection(CARD_SOURCES).document(owner.uid).set(sources.to_dict())
    ask = {"query": {"scope": "mine_and_shared"}, "initial_message": "Why does the sea have two tides a day?"}
    chat_id = call("createChat", {**ask, "model": MODEL}, owner.token)["chat_id"]
    answered(db, chat_id)
    lantern = {
        f"{owner.uid}_lantern": Card(
            "Lighthouse lanterns",
            "A lighthouse lantern turns on a bath of mercury so one keeper can wind it each night.",
            owner.uid,
        )
    }
    write_cards(db, lantern)
    flow.deck.update(lantern)
    call("postMessage", {"chat_id": chat_id, "content": "How does a lighthouse lantern turn each night?"}, owner.token)
    answered(db, chat_id)
    return chat_id


def choose_edit_withdraw(db, call, flow: Flow, chat_id: str) -> None:
    """A pin, an exclusion, an edited card and a withdrawn one, then an answer that re-packs and re-checks."""
    o, s = flow.people["owner"], flow.people["sharer"]
    call("pinCard", {"chat_id": chat_id, "card_id": f"{o.uid}_bread"}, o.token)
    call("excludeCard", {"chat_id": chat_id, "card_id": f"{o.uid}_moorings"}, o.token)
    db.collection(CARDS).document(f"{o.uid}_git").update({"body": GIT_EDITED, "updated": now()})
    flow.texts[f"{o.uid}_git"].append(GIT_EDITED)
    db.collection(CARDS).document(f"{s.uid}_vault").update({"viewers": [], "updated": now()})
    call("postMessage", {"chat_id": chat_id, "content": "And what does the moon pull?"}, o.token)
    answered(db, chat_id)


def share_and_publish(db, call, flow: Flow, chat_id: str) -> None:
    o = flow.people["owner"]
    call("shareChat", {"chat_id": chat_id, "add": [flow.people["viewer"].email], "show_author": True}, o.token)
    db.collection(CHATS).document(chat_id).update({"published": True})


def saved_chat(db, call, flow: Flow) -> str:
    o = flow.people["owner"]
    saved = SavedCollection(o.uid, "Port notes", INSTRUCTIONS, query={"scope": "mine", "tag": TAG})
    db.collection(SAVED_COLLECTIONS).document(f"{o.uid}-port").set(saved.to_dict())
    ask = {"collection_id": f"{o.uid}-port", "initial_message": "When does the harbour open?", "model": MODEL}
    chat_id = call("createChat", ask, o.token)["chat_id"]
    answered(db, chat_id)
    return chat_id


#: What the searching model looks for: words of most of the deck, so it finds cards its background lacks.
SEARCH_QUERY = "orchids vault combination sourdough starter bicycle chain harbour mooring git commit"


class SearchingServer(ThreadingHTTPServer):
    """An OpenAI-compatible endpoint (on 127.0.0.1, a thread of the test) whose model, offered the
    search_cards tool, calls it once with SEARCH_QUERY, then answers citing the first card found;
    asked without the tool (a title, follow-ups), it answers a plain sentence."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Searching)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self.results: list[str] = []  # the tool results it was sent
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class _Searching(BaseHTTPRequestHandler):
    server: SearchingServer

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._send("application/json", json.dumps({"data": [{"id": "searcher", "object": "model"}]}))

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
        self.server.results += results
        chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "searcher"}
        if body.get("tools") and not results:
            call = {"index": 0, "id": "call_1", "type": "function"}
            call["function"] = {"name": "search_cards", "arguments": json.dumps({"query": SEARCH_QUERY})}
            delta, finish = {"tool_calls": [call]}, "tool_calls"
        else:
            found = re.search(r'<card n="(\d+)"', results[-1]) if results else None
            delta, finish = (
                {"content": f"Your cards say so [{found.group(1)}]." if found else "Tides and harbours."},
                "stop",
            )
        events = [{**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}]
        events.append({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        self._send("text/event-stream", "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n")

    def _send(self, kind: str, text: str) -> None:
        data = text.encode()
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def searched_chat(db, call, flow: Flow, server: SearchingServer) -> str:
    """A chat on the owner's own endpoint with look_further on, over a background too small for most
    of the deck: its answer searches, finds cards and cites one of them."""
    o = flow.people["owner"]
    call("setApiKey", {"provider": "openai_compatible", "key": "own-key-0000", "base_url": server.url}, o.token)
    model = next(m["id"] for m in call("listModels", {}, o.token)["models"] if m["id"].endswith(":searcher"))
    ask = {"query": {"scope": "mine_and_shared"}, "initial_message": "Why does the sea have two tides a day?"}
    ask |= {"model": model, "look_further": True, "background_percentage": 0.016}
    chat_id = call("createChat", ask, o.token)["chat_id"]
    answered(db, chat_id)
    return chat_id


def build(db, call, sign_up, server: SearchingServer) -> Flow:
    who = people(db, sign_up)
    flow = Flow(who, deck(who))
    flow.texts = {cid: [c.body] for cid, c in flow.deck.items()}
    write_cards(db, flow.deck)
    source = flow.chats["source"] = source_chat(db, call, flow)
    flow.texts.update({cid: [c.body] for cid, c in flow.deck.items() if cid not in flow.texts})
    choose_edit_withdraw(db, call, flow, source)
    owner = who["owner"].token
    branch = call("branchChat", {"chat_id": source, "message_index": 0, "content": "What makes tides high?"}, owner)
    flow.chats["branch"] = branch["chat_id"]
    answered(db, flow.chats["branch"])
    share_and_publish(db, call, flow, source)
    flow.chats["saved"] = saved_chat(db, call, flow)
    share_and_publish(db, call, flow, flow.chats["saved"])
    flow.chats["searched"] = searched_chat(db, call, flow, server)
    share_and_publish(db, call, flow, flow.chats["searched"])
    flow.chats["continued"] = call("continueChat", {"chat_id": source}, who["continuer"].token)["chat_id"]
    for chat_id in flow.chats.values():
        flow.answers += answered(db, chat_id)
    return flow


def private(db, chat_id: str) -> dict[str, Any]:
    return db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict() or {}
