"""Each user's index of the words of the chats they may read (chat_search, chat_search_shards,
chat_search_messages): their shapes, one definition each, like documents.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardchat.schema.documents import COLLECTIONS, SHARED, _dict

#: Server-only, keyed by uid: the head of a reader's chat search index (ChatSearchHead).
CHAT_SEARCH = COLLECTIONS["chat_search"]
#: Server-only, keyed {uid}_{n} (the reader's own chats) or {uid}_s{n} (chats shared with them): one
#: shard of that index (ChatSearchShard).
CHAT_SEARCH_SHARDS = COLLECTIONS["chat_search_shards"]
#: Server-only, keyed by chat id: the ids of a chat's indexed messages (ChatSearchMessages).
CHAT_SEARCH_MESSAGES = COLLECTIONS["chat_search_messages"]
#: searchChats' `text`, in characters at most.
MAX_CHAT_SEARCH_CHARS: int = SHARED["chat_search"]["query_max_chars"]


@dataclass
class ChatSearchHead:
    """chat_search/{uid}: the chats a reader's index holds, each under a short key the postings use
    ({key: {chat, title}}, and for a chat shared with the reader `shared` and the `postings` it added);
    a chat leaves it when it is deleted or no longer shared with the reader."""

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
