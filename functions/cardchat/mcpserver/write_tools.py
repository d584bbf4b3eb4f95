"""The MCP tools that write: create_card and update_card, on the caller's own cards, with a write
token only (server.py refuses them to a read token with a tool error saying why, before any
handler runs). Their schemas bound what card_validity bounds; the domain checks the rest
(chat/card_authoring.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cardchat.parsing.card_validity import TAG_MAX_CHARS, TAGS_MAX, TITLE_MAX_CHARS, VISIBILITIES

if TYPE_CHECKING:
    from cardchat.repo.db import Db

_TITLE = {"type": "string", "minLength": 1, "maxLength": TITLE_MAX_CHARS, "description": "The card's title."}
_MARKDOWN = {"type": "string", "minLength": 1, "description": "The card's text, in Markdown."}
_TAGS = {
    "type": "array",
    "maxItems": TAGS_MAX,
    "items": {"type": "string", "minLength": 1, "maxLength": TAG_MAX_CHARS},
    "description": "Tags (words the user files cards under).",
}

WRITE_TOOLS: list[dict[str, Any]] = [
    {
        "name": "create_card",
        "title": "Create a card",
        "description": (
            "Save a new note as one of the user's Cardchat cards: a title and Markdown text, optionally tags and "
            "a visibility (private by default; public makes it readable by anyone with its link). Returns the new "
            "card's id. Needs an access token with scope write."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "title": _TITLE,
                "markdown": _MARKDOWN,
                "tags": _TAGS,
                "visibility": {
                    "type": "string",
                    "enum": list(VISIBILITIES),
                    "default": "private",
                    "description": "Who may read it: private (the default) or public.",
                },
            },
            "required": ["title", "markdown"],
            "additionalProperties": False,
        },
    },
    {
        "name": "update_card",
        "title": "Update a card",
        "description": (
            "Change one of the user's own Cardchat cards: give its id and any of title, markdown (replaces the "
            "whole text) and tags (replace the list). Cards of other people cannot be changed. Needs an access "
            "token with scope write."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "minLength": 1, "maxLength": 1500, "description": "The card's id."},
                "title": _TITLE,
                "markdown": _MARKDOWN,
                "tags": _TAGS,
            },
            "required": ["id"],
            "additionalProperties": False,
        },
    },
]
WRITE_TOOL_NAMES = frozenset(t["name"] for t in WRITE_TOOLS)


def create_card(db: Db, uid: str, args: dict[str, Any]) -> dict[str, Any]:
    from cardchat.chat.card_authoring import create_card as create

    return {"id": create(db, uid, args["title"], args["markdown"], list(args.get("tags") or []), args["visibility"])}


def update_card(db: Db, uid: str, args: dict[str, Any]) -> dict[str, Any]:
    from cardchat.chat.card_authoring import update_card as update

    update(db, uid, args["id"], {k: args[k] for k in ("title", "markdown", "tags") if k in args})
    return {"id": args["id"], "updated": True}


WRITE_HANDLERS: dict[str, Callable[[Any, str, dict[str, Any]], dict[str, Any]]] = {
    "create_card": create_card,
    "update_card": update_card,
}
