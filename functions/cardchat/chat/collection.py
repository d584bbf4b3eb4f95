"""What a chat is made from, resolved for one user: the one place a chat's
source becomes cards (issue 21).

A source is either the exact card ids the client sent (≤ 20,000) or a
CollectionQuery ("all cards I can see", a tag, a visibility, a text), which
the server resolves itself, so "Chat with all 10,000 cards" sends a few
words, not 10,000 ids. Both are culled alike: a card the user may not read is
dropped without a trace (access.readable_cards, CollectionQuery.admits).
createChat, continueChat (chat/create.select_background) and every follow-up
(chat/turn_context.rank_source) come through `resolve`; the per-owner
retrieval index is meant to take its place behind this one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from cardchat import access
from cardchat.collection_query import CollectionQuery
from cardchat.schema import Card

#: What a chat is made from: exact ids (in the client's order) or a query.
CardSource: TypeAlias = Sequence[str] | CollectionQuery


def resolve(db: Any, uid: str, source: CardSource) -> dict[str, Card]:
    """The cards of `source` that `uid` may read: for ids in their order,
    missing and unreadable ones dropped; for a query every card it admits,
    by id, and with a text only those the text matches (text_matches)."""
    if isinstance(source, CollectionQuery):
        from cardchat.repo import listings

        cards = listings.query_cards(db, uid, source)
        return text_matches(cards, source.text) if source.text else cards
    from cardchat.repo import cards as card_repo

    return access.readable_cards(card_repo.load_cards(db, source), uid, source)


def text_matches(cards: dict[str, Card], text: str) -> dict[str, Card]:
    """The cards holding at least one of `text`'s terms as retrieval reads
    them (a positive BM25 score: the same tokens, compounds and title as the
    ranking that follows, so what the filter keeps is what the ranker can find)."""
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.retrieval.rank import sparse_scores

    ids = list(cards)
    if not ids:
        return {}
    pairs = [embeddable_and_hash(cards[c].title, cards[c].body) for c in ids]
    scores = sparse_scores(text, ids, [p[0] for p in pairs], [p[1] for p in pairs])
    return {c: cards[c] for c, s in zip(ids, scores.tolist()) if s > 0}


def source_of(stored: dict[str, Any]) -> CardSource:
    """A chat_sources document's source (context_schema.ChatSource): its query, else its ids."""
    query = stored.get("collection_query")
    return CollectionQuery.from_dict(query) if query else list(stored.get("card_ids") or [])
