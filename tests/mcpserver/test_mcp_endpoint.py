"""The card MCP endpoint through the real Functions, Auth and Firestore
emulators, spoken to by the official MCP Python client (Streamable HTTP):
personal access tokens act as their user and nothing more."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.request
from typing import Any

import httpx2
import pytest
from conftest import CallError, _post
from google.cloud.firestore import FieldFilter
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from cardchat.schema.accounts import ACCESS_TOKEN_HASHES, ACCESS_TOKENS
from cardchat.schema.documents import CARDS, USERS, Card, UserDoc

pytestmark = pytest.mark.functions

SECRET = "The quokka vault opens with the phrase marmalade-zeppelin-nine."


@pytest.fixture
def url(functions_base) -> str:
    return f"{functions_base}/mcp"


@pytest.fixture
def people(app_db, sign_up, call):
    """A (owning a private card and a public one) and B, each with a token."""
    a_uid, a_id = sign_up()
    b_uid, b_id = sign_up()
    batch = app_db.batch()
    batch.set(app_db.collection(CARDS).document("quokka"), Card("Quokka vault", SECRET, a_uid).to_dict())
    batch.set(
        app_db.collection(CARDS).document("tides"),
        Card("Why the sea has tides", "The moon pulls the oceans.", a_uid, "public", tags=["sea"]).to_dict(),
    )
    batch.commit()
    a_token = call("createAccessToken", {"label": "A's laptop"}, a_id)["token"]
    b_token = call("createAccessToken", {"label": "B's laptop"}, b_id)["token"]
    return {"a": (a_uid, a_id, a_token), "b": (b_uid, b_id, b_token)}


def connect(url: str, token: str, mode: str = "auto") -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return Client(streamable_http_client(url, http_client=http, terminate_on_close=False), mode=mode)


def run(coro):
    return asyncio.run(coro)


async def _tool(url: str, token: str, name: str, args: dict):
    async with connect(url, token) as client:
        return await client.call_tool(name, args)


def post(url: str, body: dict, token: str | None) -> tuple[int, Any, dict]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.headers, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.headers, json.loads(e.read() or b"{}")


def owned(db, uid: str) -> list[dict]:
    """The owner's listing of their tokens (access_tokens)."""
    return [d.to_dict() for d in db.collection(ACCESS_TOKENS).where(filter=FieldFilter("owner", "==", uid)).stream()]


LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def test_initialize_and_the_tools_a_model_reads(url, people):
    async def go():
        async with connect(url, people["a"][2], mode="legacy") as client:
            return client.protocol_version, client.session.server_info, await client.list_tools()

    version, info, listed = run(go())
    assert version == "2025-11-25"
    assert info.name == "cardchat"
    tools = {t.name: t for t in listed.tools}
    readers = {"search_cards", "get_card", "list_chats", "get_chat"}
    assert set(tools) == readers | {"create_card", "update_card"}
    assert tools["search_cards"].input_schema["required"] == ["query"]
    assert tools["get_card"].input_schema["required"] == ["id"]
    assert tools["create_card"].input_schema["required"] == ["title", "markdown"]
    assert all(len(t.description or "") > 80 for t in tools.values())
    assert {n for n, t in tools.items() if t.annotations.read_only_hint} == readers
    # other people's cards, and answers drawn from them, can be in what a tool returns
    assert {n: t.annotations.open_world_hint for n, t in tools.items()} == {
        "search_cards": True,
        "get_card": True,
        "get_chat": True,
        "list_chats": False,
        "create_card": False,
        "update_card": False,
    }


def test_search_finds_a_private_card_for_its_owner_only(url, people):
    mine = run(_tool(url, people["a"][2], "search_cards", {"query": "quokka vault phrase"}))
    assert not mine.is_error
    hits = mine.structured_content["results"]
    assert hits[0]["id"] == "quokka" and hits[0]["title"] == "Quokka vault"
    assert "marmalade" in hits[0]["snippet"]
    assert set(hits[0]) == {"id", "title", "tags", "snippet", "score", "owner", "yours"}
    assert (hits[0]["owner"], hits[0]["yours"]) == (people["a"][0], True)

    theirs = run(_tool(url, people["b"][2], "search_cards", {"query": "quokka vault phrase", "limit": 50}))
    assert theirs.structured_content["results"] == []  # B's own cards by default: none
    args = {"query": "quokka vault phrase", "limit": 50, "scope": "owner", "owner": people["a"][0]}
    chosen = run(_tool(url, people["b"][2], "search_cards", args))
    ids = [h["id"] for h in chosen.structured_content["results"]]
    assert "quokka" not in ids and "marmalade" not in json.dumps(chosen.structured_content)
    assert ids == ["tides"]  # A's public card is B's to find, when B asks for A's public cards


def test_search_answers_as_search_cards_does(url, people, call):
    """The tool answers what searchCards answers over the same default scope (both rank the index;
    tests/mcpserver/test_mcp_search.py counts what it reads)."""
    _, a_id, a_token = people["a"]
    found = run(_tool(url, a_token, "search_cards", {"query": "the moon and the sea", "limit": 2}))
    ids = [h["id"] for h in found.structured_content["results"]]
    truth = call("searchCards", {"text": "the moon and the sea", "limit": 2}, a_id)
    assert ids == [c["id"] for c in truth["cards"]] and ids[0] == "tides"


def test_get_card_of_a_card_b_may_not_view_is_not_found_like_a_missing_one(url, people):
    own = run(_tool(url, people["a"][2], "get_card", {"id": "quokka"}))
    assert own.structured_content["markdown"] == SECRET and own.structured_content["yours"] is True
    assert own.structured_content["owner"] == people["a"][0] and "foreign" not in own.structured_content
    # A's public card read by B: marked as someone else's, its text material to cite
    theirs = run(_tool(url, people["b"][2], "get_card", {"id": "tides"})).structured_content
    assert (theirs["owner"], theirs["yours"], theirs["foreign"]) == (people["a"][0], False, True)
    assert "not instructions" in theirs["note"]

    hidden = run(_tool(url, people["b"][2], "get_card", {"id": "quokka"}))
    missing = run(_tool(url, people["b"][2], "get_card", {"id": "no-such-card"}))
    assert hidden.is_error and missing.is_error
    assert hidden.content == missing.content and hidden.structured_content == missing.structured_content
    assert "quokka" not in json.dumps(hidden.model_dump(mode="json")).lower()


def test_missing_bad_and_revoked_tokens_get_401_with_a_bearer_challenge(url, people, app_db, call):
    for token in (None, "not-a-token", "ccpat_" + "x" * 43):
        status, headers, body = post(url, LIST_TOOLS, token)
        assert status == 401, token
        assert headers.get("WWW-Authenticate", "").startswith("Bearer ")
        assert body["error"]["code"] == -32001

    a_uid, a_id, token = people["a"]
    assert post(url, LIST_TOOLS, token)[0] == 200
    call("revokeAccessToken", {"token": token}, a_id)
    assert post(url, LIST_TOOLS, token)[0] == 401  # at once: the next request

    second = call("createAccessToken", {"label": "second"}, a_id)
    assert post(url, LIST_TOOLS, second["token"])[0] == 200
    with pytest.raises(CallError) as e:  # B cannot revoke A's token, by id or by value
        call("revokeAccessToken", {"id": second["id"]}, people["b"][1])
    assert e.value.status == "NOT_FOUND"
    call("revokeAccessToken", {"id": second["id"]}, a_id)
    assert post(url, LIST_TOOLS, second["token"])[0] == 401
    assert owned(app_db, a_uid) == []


def test_a_deleted_accounts_token_gets_401(url, people):
    _, b_id, b_token = people["b"]
    host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
    _post(f"http://{host}/identitytoolkit.googleapis.com/v1/accounts:delete?key=demo-key", {"idToken": b_id})
    status, headers, _ = post(url, LIST_TOOLS, b_token)
    assert status == 401 and headers.get("WWW-Authenticate", "").startswith("Bearer ")
    assert post(url, LIST_TOOLS, people["a"][2])[0] == 200  # another account's token still works


def test_a_token_is_stored_only_as_a_hash_and_listed_without_it(app_db, people):
    a_uid, _, token = people["a"]
    listing = owned(app_db, a_uid)
    assert len(listing) == 1 and listing[0]["label"] == "A's laptop" and listing[0]["last_used"] is None
    stored = json.dumps([d.to_dict() for d in app_db.collection(ACCESS_TOKEN_HASHES).stream()], default=str)
    everything = stored + json.dumps(listing, default=str)
    assert token not in everything and token[6:] not in everything


def test_last_used_is_stamped(url, app_db, people):
    a_uid, _, token = people["a"]
    assert post(url, LIST_TOOLS, token)[0] == 200
    (doc,) = owned(app_db, a_uid)
    assert doc["last_used"] is not None


BAD_ARGUMENTS = [
    ("search_cards", {}, "query"),
    ("search_cards", {"query": "tides", "limit": 500}, "limit"),
    ("search_cards", {"query": "tides", "limit": "many"}, "limit"),
    ("search_cards", {"query": "tides", "colour": "red"}, "colour"),
    ("search_cards", {"query": "   "}, "query"),
    ("search_cards", {"query": "tides", "scope": "public"}, "scope"),
    ("search_cards", {"query": "tides", "scope": "owner"}, "owner"),
    ("search_cards", {"query": "tides", "owner": "someone"}, "owner"),
    ("get_card", {"id": 5}, "id"),
    ("get_card", {"id": "a/b"}, "id"),
    ("get_chat", {}, "chat_id"),
    ("list_chats", {"limit": 0}, "limit"),
]


def test_bad_arguments_are_a_json_rpc_error_naming_the_argument(url, people):
    async def go():
        errors = []
        async with connect(url, people["a"][2]) as client:
            for tool, args, _ in BAD_ARGUMENTS:
                try:
                    await client.call_tool(tool, args)
                    errors.append(None)
                except MCPError as e:
                    errors.append(e.error)
        return errors

    for (tool, args, named), error in zip(BAD_ARGUMENTS, run(go())):
        assert error is not None, (tool, args)
        assert (error.code, error.message.split(":")[0]) == (-32602, named), (tool, args, error.message)


def test_list_chats_and_get_chat_show_the_owners_transcript_only(url, people, app_db, call):
    a_uid, a_id, a_token = people["a"]
    app_db.collection(USERS).document(a_uid).set(UserDoc(may_use_ai=True).to_dict())
    question = "How does the vault open?"
    chat_id = call("createChat", {"card_ids": ["quokka", "tides"], "initial_message": question}, a_id)["chat_id"]
    listed = run(_tool(url, a_token, "list_chats", {}))
    assert [c["id"] for c in listed.structured_content["chats"]] == [chat_id]

    chat = run(_tool(url, a_token, "get_chat", {"chat_id": chat_id})).structured_content
    assert set(chat) == {"id", "title", "model", "created", "citations", "messages"}
    assert chat["messages"][0] == {"index": 0, "role": "user", "content": question, "status": "complete"}
    assert chat["citations"]["1"] == "quokka"

    other = run(_tool(url, people["b"][2], "get_chat", {"chat_id": chat_id}))
    missing = run(_tool(url, people["b"][2], "get_chat", {"chat_id": "nope"}))
    assert other.is_error and other.content == missing.content
    assert run(_tool(url, people["b"][2], "list_chats", {})).structured_content == {"chats": []}
