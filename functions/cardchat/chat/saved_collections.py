"""createChat's `collection_id`: a chat made from one of the caller's saved collections.

The collection gives the chat its cards (its query or ids, culled and ranked as
any other source: chat/collection.py) and its instructions, which go into the
hidden background's head (retrieval/background.fit_background), so the first answer and
every follow-up read them, and no client does: not the transcript, not the
title, not chat_private (which names only the collection's id, to its owner).
Another user's collection is refused exactly as a missing one is. A stored
collection past the limits (the rules refuse one; an older or admin-written
one may be) is refused naming the field, before any slot is spent.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cardchat.access import permissions
from cardchat.errors import InvalidArgument, NotFound
from cardchat.parsing.collection_query import from_request
from cardchat.parsing.requests import CreateChatRequest, card_ids
from cardchat.schema.documents import Collection
from cardchat.schema.saved_collections import MAX_INSTRUCTIONS_CHARS, MAX_NAME_CHARS

if TYPE_CHECKING:
    from cardchat.chat.collection import CardSource
    from cardchat.repo.db import Db

#: The fields a saved collection's query may hold (CollectionQuery's, but visibility).
QUERY_KEYS = ("scope", "owner", "tag", "text")


@dataclass(frozen=True)
class SavedSource:
    """A saved collection as createChat uses it."""

    collection_id: str
    name: str
    instructions: str
    request: CreateChatRequest  # the request with the collection's query or ids in place of its id


def resolve(db: Db, uid: str, req: CreateChatRequest) -> SavedSource:
    """`req.collection_id`'s collection, if `uid` owns it (NotFound otherwise, the same for a missing
    one), checked field by field (InvalidArgument naming the field)."""
    assert req.collection_id is not None
    return _checked(req, _owned(db, uid, req.collection_id))


def _owned(db: Db, uid: str, collection_id: str) -> dict[str, Any]:
    from cardchat.repo import saved_collections as repo

    data = repo.get_collection(db, collection_id)
    if data is None or not permissions.is_owner(data, uid):
        raise NotFound("collection_id: no such collection")
    return data


def source_of(db: Db, uid: str, collection_id: str) -> CardSource:
    """The cards of `uid`'s saved collection `collection_id` (its query, else its ids), for a review
    of it; NotFound as `resolve` refuses, and InvalidArgument naming a field past its limits."""
    data = _owned(db, uid, collection_id)
    query, ids = data.get("query"), data.get("card_ids")
    if (query is None) == (ids is None):
        raise InvalidArgument("query: the collection must hold a query or card_ids, one of them")
    return from_request(query, "query", QUERY_KEYS) if query is not None else card_ids(ids)


def _checked(req: CreateChatRequest, data: dict[str, Any]) -> SavedSource:
    instructions, name = data.get("instructions", ""), data.get("name", "")
    if not isinstance(instructions, str) or len(instructions) > MAX_INSTRUCTIONS_CHARS:
        raise InvalidArgument(
            f"instructions: the collection's must be text of at most {MAX_INSTRUCTIONS_CHARS:,} characters"
        )
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        raise InvalidArgument(f"name: the collection's must be text of at most {MAX_NAME_CHARS:,} characters")
    query, ids = data.get("query"), data.get("card_ids")
    if (query is None) == (ids is None):
        raise InvalidArgument("query: the collection must hold a query or card_ids, one of them")
    if query is not None:
        made = replace(req, query=from_request(query, "query", QUERY_KEYS), card_ids=[])
    else:
        made = replace(req, card_ids=card_ids(ids), query=None)
    if not made.collection.description:  # the collection's name describes it to the model, as the Cards page does
        made = replace(made, collection=Collection(name.strip(), made.collection.configuration))
    return SavedSource(req.collection_id or "", name.strip(), instructions.strip(), made)
