"""Cards reached from outside a chat: the Cards page's ranked search, a draft checked against
the cards, the MCP endpoint, and syncCards (a folder of notes kept as cards, cardchat-sync's endpoint)."""

from __future__ import annotations

import json
import math
from typing import Any

from firebase_functions import https_fn, options
from flask import Request  # what https_fn.on_request hands over; Flask is already loaded by firebase_functions

from cardchat.errors import CardchatError, InvalidArgument, PermissionDenied, ResourceExhausted, Unauthenticated
from cardchat.parsing import requests
from endpoints.base import caller, db, endpoint, secrets_for


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=secrets_for("searchCards"))
@endpoint
def searchCards(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The Cards page's text filter, ranked over the chosen collection (1 GiB: as createChat, it embeds and ranks)."""
    from cardchat.chat import card_search

    return card_search.search_cards(db(), caller(req), requests.search_cards(req.data)).to_dict()


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=120, secrets=secrets_for("checkDraft"))
@endpoint
def checkDraft(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """Each claim of a draft against the caller's cards (1 GiB: it embeds and ranks, as searchCards)."""
    from cardchat.generation import draft_check
    from cardchat.parsing.draft_requests import check_draft

    uid = caller(req)
    return draft_check.check_draft(db(), uid, check_draft(req.data)).to_dict()


@https_fn.on_request(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=secrets_for("mcp"))
def mcp(req: Request) -> Any:
    """MCP over Streamable HTTP (cardchat/mcpserver/), a personal access token the bearer; refusals: 401, 429, 405."""
    from cardchat.access import access_tokens
    from cardchat.mcpserver import server

    if req.method != "POST":
        return server.refusal(405, "Only POST: this server is stateless and streams nothing", {"Allow": "POST"})
    try:
        who = access_tokens.bearer(db(), req.headers.get("Authorization"))
    except CardchatError as e:
        return server.refused(e)
    return server.serve(req.environ, db(), who.uid, who.scope)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=300)
def syncCards(req: Request) -> Any:
    """POST {source, files, delete_missing, run?} with a write token (cardchat/chat/card_sync.py). Refusals: 401 a
    missing, unknown or revoked token or a deleted account; 403 a read token; 400 a malformed field,
    named; 413 a body over MAX_REQUEST_BYTES; 405, 409, 429."""
    from cardchat.access import access_tokens
    from cardchat.chat import card_sync
    from cardchat.parsing.sync_requests import MAX_REQUEST_BYTES, sync_request

    if req.method != "POST":
        return _answer(405, {"error": "Only POST"}, {"Allow": "POST"})
    if (req.content_length or 0) > MAX_REQUEST_BYTES:
        return _answer(413, {"error": f"request: at most {MAX_REQUEST_BYTES} bytes (10 MiB) per request"})
    try:
        uid = access_tokens.bearer(db(), req.headers.get("Authorization")).require_write()
        body = req.get_json(silent=True)
        if body is None:
            raise InvalidArgument("body: a JSON object is required")
        return _answer(200, card_sync.sync(db(), uid, sync_request(body)).to_dict())
    except CardchatError as e:
        return _answer(_STATUS.get(type(e), 409), {"error": e.message}, _retry_after(e))


#: The HTTP status of each refusal a JSON endpoint answers (anything else it knows: 409).
_STATUS: dict[type[CardchatError], int] = {
    Unauthenticated: 401,
    PermissionDenied: 403,
    InvalidArgument: 400,
    ResourceExhausted: 429,
}


def _retry_after(e: CardchatError) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(e.retry_after)))} if isinstance(e, ResourceExhausted) else {}


def _answer(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    from werkzeug.wrappers import Response

    return Response(json.dumps(body), status=status, headers=headers, content_type="application/json")
