"""Requests of the card page's Related cards (relatedCards): which card, how many, and within what.

Kept apart from requests.py: these name a card the caller reads, not a chat or a search text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardchat.errors import InvalidArgument
from cardchat.parsing.collection_query import CollectionQuery, from_request
from cardchat.parsing.requests import doc_id

#: Related cards a page asks for by default, and at most.
RELATED_LIMIT_DEFAULT = 5
RELATED_LIMIT_MAX = 20


@dataclass(frozen=True)
class RelatedCardsRequest:
    card_id: str
    limit: int
    #: whose cards are ranked: the caller's own unless they chose another scope (as searchCards)
    query: CollectionQuery


def related_cards(data: Any) -> RelatedCardsRequest:
    """relatedCards({card_id, limit?, scope?, owner?, tag?, visibility?})"""
    card_id = doc_id(data, "card_id")
    limit = data.get("limit", RELATED_LIMIT_DEFAULT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= RELATED_LIMIT_MAX:
        raise InvalidArgument(f"limit: must be a whole number from 1 to {RELATED_LIMIT_MAX}")
    rest = {k: v for k, v in data.items() if k not in ("card_id", "limit")}
    return RelatedCardsRequest(card_id, limit, from_request(rest, "", ("scope", "owner", "tag", "visibility")))
