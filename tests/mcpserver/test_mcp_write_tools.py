"""The MCP tools that write (create_card, update_card) through the real Functions, Auth and
Firestore emulators: only with a write token, only on the caller's own cards; anything else is
a tool error that says why, and writes nothing."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError
from test_mcp_endpoint import _tool, connect, run

from cardchat.access.access_tokens import READ_ONLY
from cardchat.chat.card_authoring import NOT_YOURS
from cardchat.schema.documents import CARDS, Card

pytestmark = pytest.mark.functions


@pytest.fixture
def url(functions_base) -> str:
    return f"{functions_base}/mcp"


@pytest.fixture
def writers(app_db, sign_up, call):
    """A with a read token and a write token; B with a write token, owning a public and a private card."""
    a_uid, a_id = sign_up()
    b_uid, _ = sign_up()
    app_db.collection(CARDS).document(f"{b_uid}_pub").set(Card("Tides", "The moon.", b_uid, "public").to_dict())
    app_db.collection(CARDS).document(f"{b_uid}_priv").set(Card("Diary", "Private.", b_uid).to_dict())
    return {
        "a": a_uid,
        "b": b_uid,
        "a_read": call("createAccessToken", {"label": "r"}, a_id)["token"],
        "a_write": call("createAccessToken", {"label": "w", "scope": "write"}, a_id)["token"],
    }


def text(result) -> str:
    return result.content[0].text


def test_a_read_token_is_refused_saying_why(url, writers, app_db):
    made = run(_tool(url, writers["a_read"], "create_card", {"title": "Note", "markdown": "Text."}))
    assert made.is_error and text(made) == READ_ONLY
    changed = run(_tool(url, writers["a_read"], "update_card", {"id": f"{writers['b']}_pub", "title": "x"}))
    assert changed.is_error and text(changed) == READ_ONLY
    assert {d.id for d in app_db.collection(CARDS).stream()} == {f"{writers['b']}_pub", f"{writers['b']}_priv"}


def test_a_write_token_creates_and_updates_its_owners_card(url, writers, app_db):
    args = {"title": "Rebase", "markdown": "Rewrite history.", "tags": ["git"]}
    made = run(_tool(url, writers["a_write"], "create_card", args))
    assert not made.is_error
    card_id = made.structured_content["id"]
    assert card_id.startswith(f"{writers['a']}_")
    stored = app_db.collection(CARDS).document(card_id).get().to_dict()
    assert (stored["owner"], stored["title"], stored["tags"], stored["visibility"]) == (
        writers["a"],
        "Rebase",
        ["git"],
        "private",
    )

    changed = run(_tool(url, writers["a_write"], "update_card", {"id": card_id, "markdown": "Onto main."}))
    assert not changed.is_error
    stored = app_db.collection(CARDS).document(card_id).get().to_dict()
    assert (stored["title"], stored["body"], stored["tags"]) == ("Rebase", "Onto main.", ["git"])


def test_another_persons_card_is_never_touched(url, writers, app_db):
    before = {d.id: d.update_time for d in app_db.collection(CARDS).stream()}
    public = run(_tool(url, writers["a_write"], "update_card", {"id": f"{writers['b']}_pub", "title": "Mine now"}))
    assert public.is_error and text(public) == NOT_YOURS
    private = run(_tool(url, writers["a_write"], "update_card", {"id": f"{writers['b']}_priv", "title": "Mine now"}))
    assert private.is_error and text(private) == "Card not found"
    assert {d.id: d.update_time for d in app_db.collection(CARDS).stream()} == before


def test_an_invalid_card_is_a_json_rpc_error_naming_the_argument(url, writers, app_db):
    """As for the reading tools' arguments (test_mcp_endpoint.py)."""

    async def go():
        async with connect(url, writers["a_write"]) as client:
            try:
                await client.call_tool("create_card", {"title": "   ", "markdown": "Text."})
            except MCPError as e:
                return e.error
        return None

    error = run(go())
    assert error is not None and (error.code, error.message.split(":")[0]) == (-32602, "title")
    assert [d.id for d in app_db.collection(CARDS).stream() if d.id.startswith(writers["a"])] == []
