"""Shapes of per-turn retrieval (generation/turn_context.py): the cards a chat was made
from, server-only, and the owner's record of what each follow-up added. Beside
schema/documents.py, whose helpers they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cardchat.schema.documents import COLLECTIONS, _dict, now

#: Server-only: the card ids a chat was made from, which each follow-up ranks anew (generation/turn_context.py).
CHAT_SOURCES = COLLECTIONS["chat_sources"]


@dataclass
class ChatSource:
    """chat_sources/{chat_id}: server-only, rules deny every client. The card
    ids the chat was made from (visible to its owner then, in request order),
    ranked again on every follow-up. One document: parsing caps the ids at
    MAX_CARD_ID_BYTES, under the 1 MiB a document may hold. A chat made from a
    query keeps the query instead (`collection_query`, CollectionQuery.to_dict(),
    `card_ids` empty): a follow-up resolves it again, so 100,000 cards cost no ids."""

    chat: str
    owner: str
    card_ids: list[str]
    # the answer whose question the background was ranked for (createChat: the
    # first, 1), which ranks nothing more; -1 for a branch, whose question is new
    ranked_for: int = 1
    created: datetime = field(default_factory=now)
    collection_query: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class ContextTurn:
    """One follow-up's change to the context, in ChatPrivate.context_turns (owner-only):
    the cards ranked anew, those added (each {"card", "n", "rank", "score"}: its
    citation number, 1-based rank among `considered`, cosine similarity to the
    question or None when unembedded), how many of the best candidates the per-turn
    budget cut, and the numbers of older additions dropped to make room."""

    message_index: int  # the answer this context was built for
    considered: int
    added: list[dict[str, Any]] = field(default_factory=list)
    cut: int = 0
    dropped: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ContextTurn:
        return cls(
            message_index=int(d.get("message_index") or 0),
            considered=int(d.get("considered") or 0),
            added=list(d.get("added") or []),
            cut=int(d.get("cut") or 0),
            dropped=[int(n) for n in d.get("dropped") or []],
        )
