"""Requests of the Review cards page (findOverlaps): which collection, and how many pairs.

Kept apart from requests.py, as relatedCards' are: a collection named by a query or a saved
collection's id, never both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardchat.errors import InvalidArgument
from cardchat.parsing.collection_query import CollectionQuery, from_request
from cardchat.parsing.requests import doc_id

#: Pairs a review asks for by default, and at most.
OVERLAPS_LIMIT_DEFAULT = 50
OVERLAPS_LIMIT_MAX = 200
_KEYS = ("query", "collection_id", "limit")


@dataclass(frozen=True)
class FindOverlapsRequest:
    limit: int
    #: the cards reviewed: the caller's own by default, or the scope, tag, visibility and text they chose
    query: CollectionQuery
    #: a saved collection of the caller's instead (chat/saved_collections.py resolves it)
    collection_id: str | None = None


def find_overlaps(data: Any) -> FindOverlapsRequest:
    """findOverlaps({query? | collection_id?, limit?})"""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidArgument("request: must be an object")
    unknown = sorted(str(k)[:40] for k in data if k not in _KEYS)
    if unknown:
        raise InvalidArgument(f"{unknown[0]}: unknown field (expected {', '.join(_KEYS)})")
    limit = data.get("limit", OVERLAPS_LIMIT_DEFAULT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= OVERLAPS_LIMIT_MAX:
        raise InvalidArgument(f"limit: must be a whole number from 1 to {OVERLAPS_LIMIT_MAX}")
    if data.get("collection_id") is not None:
        if data.get("query") is not None:
            raise InvalidArgument("collection_id: give it or query, not both")
        return FindOverlapsRequest(limit, CollectionQuery(), doc_id(data, "collection_id"))
    query = data.get("query")
    return FindOverlapsRequest(limit, CollectionQuery() if query is None else from_request(query, "query"))
