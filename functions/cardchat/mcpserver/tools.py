"""The card MCP endpoint's tools: their descriptions and JSON schemas (what a
model reads to use them unprompted), the arguments checked against those
schemas, and what each returns. Nothing here knows the MCP SDK (server.py
wires these into it), so they are tested as plain functions.

Every tool acts as one user (the owner of the access token) with exactly
that user's permissions: a card they may not view and a missing card give
the same not-found, and a chat is theirs or not found: a viewer of someone
else's chat, or a visitor of a published one, gets the not-found too (the
SPA shows them the transcript and its public citations; continueChat makes
it theirs). A transcript never carries the hidden background; the chat's
citation numbers map to card ids because the owner reads those in
chat_private anyway. A chat continued from someone else's holds, of that
chat's cards, only those its copied answers cite (chat/continuation.py), so
its citations name no other card of the source.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat.errors import InvalidArgument, NotFound
from cardchat.mcpserver.write_tools import WRITE_HANDLERS, WRITE_TOOLS
from cardchat.parsing.collection_query import DEFAULT_SCOPE, MAX_OWNER_CHARS, SCOPES, from_request
from cardchat.parsing.requests import doc_id

if TYPE_CHECKING:
    from cardchat.repo.db import Db

MAX_QUERY_CHARS = 2_000
MAX_SEARCH_RESULTS = 50
MAX_CHATS = 100
#: search_cards' arguments that choose the collection (collection_query.from_request checks them).
_COLLECTION_ARGS = ("scope", "owner", "tag")
_ID = {"type": "string", "minLength": 1, "maxLength": 1500}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "search_cards",
        "title": "Search my cards",
        "description": (
            "Search the user's own Cardchat cards (their notes; others' cards only when `scope` asks for them) "
            "for a question or topic. Ranks by meaning and by exact terms together, so both a paraphrase and an "
            "exact term (a command, a code, a name) find their cards. Returns the best cards first, each with "
            "its id, title, tags, a snippet and a score (cosine similarity of meaning, null when not yet "
            "embedded). Use get_card with an id to read a whole card."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_CHARS,
                    "description": "What to look for, in natural language or exact terms.",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_SEARCH_RESULTS,
                    "default": 10,
                    "description": f"How many cards to return (1-{MAX_SEARCH_RESULTS}, default 10).",
                },
                "scope": {
                    "type": "string",
                    "enum": list(SCOPES),
                    "default": DEFAULT_SCOPE,
                    "description": (
                        "Whose cards: mine (the default), shared (others' cards shared with the user), "
                        "mine_and_shared, or owner (one person's public cards: give `owner`)."
                    ),
                },
                "owner": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_OWNER_CHARS,
                    "description": ("With scope owner: the user id whose public cards to search."),
                },
                "tag": {"type": "string", "description": "Only cards carrying this tag."},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    {
        "name": "get_card",
        "title": "Read a card",
        "description": (
            "Read one of the user's Cardchat cards in full, as Markdown, with its title, tags, visibility and "
            "last update. The id comes from search_cards or from a chat's citations. A card that does not exist "
            "and a card the user may not view both answer 'Card not found'."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {"id": {**_ID, "description": "The card's id."}},
            "required": ["id"],
            "additionalProperties": False,
        },
    },
    {
        "name": "list_chats",
        "title": "List my chats",
        "description": (
            "List the user's own Cardchat conversations (chats with their cards), most recently active first: "
            "id, title, model, dates, number of messages and whether it is published. Use get_chat to read one."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_CHATS,
                    "default": 20,
                    "description": f"How many chats to return (1-{MAX_CHATS}, default 20).",
                }
            },
            "additionalProperties": False,
        },
    },
    {
        "name": "get_chat",
        "title": "Read a chat",
        "description": (
            "Read one of the user's own Cardchat conversations: its title and every message in order (role, "
            "text, status). Answers cite cards as [n]; `citations` maps each n to the card's id, for get_card. "
            "A chat that does not exist or is not the user's answers 'Chat not found'."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {"chat_id": {**_ID, "description": "The chat's id, from list_chats."}},
            "required": ["chat_id"],
            "additionalProperties": False,
        },
    },
]
TOOLS += WRITE_TOOLS
TOOL_SCHEMAS = {t["name"]: t["inputSchema"] for t in TOOLS}


def _message(error: Any, tool: str) -> str:
    """A jsonschema error as `<argument>: <what is wrong>`, without echoing the value."""
    kind, value = error.validator, error.validator_value
    name = error.path[0] if error.path else None
    if kind == "required":
        missing = [p for p in value if p not in (error.instance or {})]
        return f"{missing[0] if missing else 'arguments'}: is required"
    if kind == "additionalProperties":
        known = set(error.schema.get("properties") or {})
        extra = sorted(k for k in (error.instance or {}) if k not in known)
        return f"{extra[0] if extra else 'arguments'}: {tool} has no such argument"
    what = {
        "type": f"must be of type {value}",
        "minimum": f"must be at least {value}",
        "maximum": f"must be at most {value}",
        "minLength": "must not be empty" if value == 1 else f"must be at least {value} characters",
        "maxLength": f"must be at most {value} characters",
        "maxItems": f"must have at most {value} entries",
        "enum": f"must be one of {', '.join(map(str, value))}" if isinstance(value, list) else "is not valid",
    }.get(kind, "is not valid")
    return f"{name if name is not None else 'arguments'}: {what}"


def check_arguments(tool: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The arguments with defaults filled in; InvalidArgument naming the first
    argument at fault (by the tool's own input schema)."""
    import jsonschema

    schema = TOOL_SCHEMAS[tool]
    args = dict(arguments or {})
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(args), key=lambda e: list(e.path))
    if errors:
        raise InvalidArgument(_message(errors[0], tool))
    for name, prop in schema["properties"].items():
        if name not in args and "default" in prop:
            args[name] = prop["default"]
    for name in ("id", "chat_id"):
        if name in args:
            doc_id(args, name)
    return args


def _iso(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else None


def search_cards(db: Db, uid: str, args: dict[str, Any]) -> dict[str, Any]:
    from cardchat.mcpserver.search import search_cards as search

    query = args["query"].strip()
    if not query:
        raise InvalidArgument("query: must not be empty")
    collection = from_request({k: args[k] for k in _COLLECTION_ARGS if k in args}, "", _COLLECTION_ARGS)
    return {"results": [hit.to_dict() for hit in search(db, uid, query, args["limit"], collection)]}


def get_card(db: Db, uid: str, args: dict[str, Any]) -> dict[str, Any]:
    from cardchat.mcpserver.provenance import as_shown, provenance
    from cardchat.repo import cards as card_repo

    card = card_repo.load_cards(db, [args["id"]]).get(args["id"])
    if card is None or not card.visible_to(uid):
        raise NotFound("Card not found")
    return {
        "id": args["id"],
        "title": as_shown(card, uid, card.title),
        "tags": list(card.tags),
        "visibility": card.visibility,
        **provenance(card, uid),
        "updated": _iso(card.updated),
        "markdown": as_shown(card, uid, card.body),
    }


def list_chats(db: Db, uid: str, args: dict[str, Any]) -> dict[str, Any]:
    from cardchat.repo import listings

    return {
        "chats": [
            {
                "id": chat_id,
                "title": data.get("title") or "",
                "model": data.get("model") or "",
                "created": _iso(data.get("created")),
                "last_updated": _iso(data.get("last_updated")),
                "message_count": int(data.get("message_count") or 0),
                "published": bool(data.get("published")),
            }
            for chat_id, data in listings.owner_chats(db, uid, args["limit"])
        ]
    }


def get_chat(db: Db, uid: str, args: dict[str, Any]) -> dict[str, Any]:
    from cardchat.repo import chats as chat_repo
    from cardchat.repo import messages as messages_repo

    chat_id = args["chat_id"]
    chat = chat_repo.get_chat(db, chat_id)
    if chat is None or chat.get("owner") != uid:
        raise NotFound("Chat not found")
    private = chat_repo.get_private(db, chat_id) or {}
    card_ids = [c if isinstance(c, str) else "" for c in private.get("card_ids") or []]
    return {
        "id": chat_id,
        "title": chat.get("title") or "",
        "model": chat.get("model") or "",
        "created": _iso(chat.get("created")),
        "citations": {str(n): c for n, c in enumerate(card_ids, start=1) if c},
        "messages": [
            {
                "index": m.message_index,
                "role": m.role,
                "content": m.content,
                "status": m.status,
                **({"error": m.error} if m.error else {}),
            }
            for _, m in messages_repo.chat_messages(db, chat_id)
        ],
    }


HANDLERS: dict[str, Callable[[Any, str, dict[str, Any]], dict[str, Any]]] = {
    "search_cards": search_cards,
    "get_card": get_card,
    "list_chats": list_chats,
    "get_chat": get_chat,
    **WRITE_HANDLERS,
}
