"""Cards reached from outside a chat: the Cards page's ranked search, and the MCP endpoint."""

from __future__ import annotations

from typing import Any

from firebase_functions import https_fn, options
from flask import Request  # what https_fn.on_request hands over; Flask is already loaded by firebase_functions

from cardchat.errors import CardchatError
from cardchat.parsing import requests
from endpoints.base import caller, db, endpoint, secrets_for


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=secrets_for("searchCards"))
@endpoint
def searchCards(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The Cards page's text filter, ranked over the chosen collection (1 GiB: as createChat, it embeds and ranks)."""
    from cardchat.chat import card_search

    return card_search.search_cards(db(), caller(req), requests.search_cards(req.data)).to_dict()


@https_fn.on_request(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=secrets_for("mcp"))
def mcp(req: Request) -> Any:
    """MCP over Streamable HTTP (cardchat/mcpserver/), a personal access token the bearer; refusals: 401, 429, 405."""
    from cardchat.access import access_tokens
    from cardchat.mcpserver import server

    if req.method != "POST":
        return server.refusal(405, "Only POST: this server is stateless and streams nothing", {"Allow": "POST"})
    try:
        uid = access_tokens.authenticate(db(), req.headers.get("Authorization"))
    except CardchatError as e:
        return server.refused(e)
    return server.serve(req.environ, db(), uid)
