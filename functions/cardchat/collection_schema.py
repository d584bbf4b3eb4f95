"""Saved collections (collections/{id}) and each user's index of the words of the chats they may
read (chat_search, chat_search_shards): their shapes and limits, one definition each, like
schema.py. The limits are common/collections.json's, which firestore.rules and the SPA hold too."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cardchat.schema import COLLECTIONS, SHARED, _dict, now

#: collections/{id}: a user's saved collection (SavedCollection), written by its owner through the rules.
SAVED_COLLECTIONS = COLLECTIONS["collections"]
#: Server-only, keyed by uid: the head of a reader's chat search index (ChatSearchHead).
CHAT_SEARCH = COLLECTIONS["chat_search"]
#: Server-only, keyed {uid}_{n}: one shard of that index (ChatSearchShard).
CHAT_SEARCH_SHARDS = COLLECTIONS["chat_search_shards"]
#: Server-only, keyed by chat id: the ids of a chat's indexed messages (ChatSearchMessages).
CHAT_SEARCH_MESSAGES = COLLECTIONS["chat_search_messages"]

_LIMITS: dict[str, Any] = SHARED["saved_collection_limits"]
MAX_NAME_CHARS: int = _LIMITS["name_max_chars"]
MAX_INSTRUCTIONS_CHARS: int = _LIMITS["instructions_max_chars"]
MAX_COLLECTION_CARD_IDS: int = _LIMITS["card_ids_max"]
#: searchChats' `text`, in characters at most.
MAX_CHAT_SEARCH_CHARS: int = SHARED["chat_search"]["query_max_chars"]


@dataclass
class SavedCollection:
    """collections/{id}: the owner's standing choice of cards, `query` (CollectionQuery.to_dict(): scope,
    owner, tag, text) or `card_ids` (exactly one), and `instructions` to the model, which reach it
    through the hidden background of every chat made from it and nowhere else."""

    owner: str
    name: str
    instructions: str = ""
    query: dict[str, Any] | None = None
    card_ids: list[str] | None = None
    created: datetime = field(default_factory=now)
    updated: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in _dict(self).items() if v is not None}


@dataclass
class ChatSearchHead:
    """chat_search/{uid}: the chats a reader's index holds, each under a short key the postings use
    ({key: {chat, title}}); a chat leaves it when it is deleted or no longer shared with the reader."""

    owner: str
    chats: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class ChatSearchShard:
    """chat_search_shards/{uid}_{n}: for the terms hashed to shard n, each term's postings
    ("{chat key}.{message index}"), under the term's hash (`p`): no word is stored as written."""

    owner: str
    p: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class ChatSearchMessages:
    """chat_search_messages/{chat_id}: the id of each indexed message of the chat, by "m{message index}",
    so a search reads the messages it shows by id (a chat's later messages have random ids)."""

    chat: str
    owner: str
    ids: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)
