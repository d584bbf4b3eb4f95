"""What a chat is made from, resolved for one user: the one place a chat's
source becomes cards.

A source is either the exact card ids the client sent (≤ 20,000) or a
CollectionQuery ("all my cards" by default; cards shared with me or one
owner's public cards when chosen; a tag, a visibility, a text), which
the server resolves itself, so "Chat with all 10,000 cards" sends a few
words, not 10,000 ids. Both are culled alike: a card the user may not read is
dropped without a trace (permissions.readable_cards, CollectionQuery.admits).
chat/candidates.resolve turns either into ranked candidates over the
per-owner retrieval index, for createChat, continueChat, every follow-up and
searchCards; this module names the two kinds and reads a stored source back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from cardchat.parsing.collection_query import CollectionQuery

#: What a chat is made from: exact ids (in the client's order) or a query.
CardSource: TypeAlias = Sequence[str] | CollectionQuery


def source_of(stored: dict[str, Any]) -> CardSource:
    """A chat_sources document's source (chat_sources.ChatSource): its query (an old scope read
    as CollectionQuery.from_dict reads it), else its ids."""
    query = stored.get("collection_query")
    return CollectionQuery.from_dict(query) if query else list(stored.get("card_ids") or [])
