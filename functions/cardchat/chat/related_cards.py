"""relatedCards: the cards nearest to the one a reader has open, for the card page's Related cards.

The card itself is the query, ranked by searchCards' hybrid ranker over the
collection the reader chose (their own cards unless they name another scope:
chat/candidates.py, so nothing they did not choose is ranked, and no work grows
with it). Dense: the card's stored vector (a document's own, as the index holds
its neighbours'; embedded on the spot only when it has none). BM25: the card's
title and the opening of its body, at most QUERY_CHARS, so a long card costs
no more than one search (`scripts/bench related_cards`). The card is never among its own related cards, and a
card the reader may not read is NOT_FOUND, the same as a missing one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cardchat.errors import NotFound

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np

    from cardchat.parsing.related_requests import RelatedCardsRequest
    from cardchat.repo.db import Db
    from cardchat.schema.documents import Card

#: Characters of the card's text (its title first) that BM25 ranks for: half a search's longest text, since
#: each term is a pass over the postings (a shorter opening measured faster in `scripts/bench related_cards`).
QUERY_CHARS = 250


@dataclass
class RelatedResult:
    cards: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"cards": self.cards}


def related_cards(
    db: Db, uid: str, req: RelatedCardsRequest, now: datetime | None = None, per_minute: int | None = None
) -> RelatedResult:
    """The `req.limit` cards nearest to `req.card_id` that `uid` may read within
    `req.query`, each {id, title, snippet, tags, visibility, owner, score}; cards
    sharing nothing with it (a fused score of 0) are left out. One slot of the
    caller's search minute, as a search, once the card is found readable."""
    from cardchat.access import ratelimit
    from cardchat.chat.card_search import best_cards, snippet
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.schema.documents import SEARCH_WINDOW

    card = readable_card(db, uid, req.card_id)
    # after the card is found readable: a refused call spends nothing
    ratelimit.spend(db, uid, SEARCH_WINDOW, "searches", now, per_minute)
    text, text_hash = embeddable_and_hash(card.title, card.body)
    query_text = text[:QUERY_CHARS]
    vector = _vector(db, req.card_id, text_hash, query_text)
    found = best_cards(db, uid, query_text, req.limit, req.query, vector, frozenset([req.card_id]))
    return RelatedResult(
        [
            {
                "id": cid,
                "title": near.title,
                "snippet": snippet(embeddable_and_hash(near.title, near.body)[0].partition("\n")[2], query_text),
                "tags": list(near.tags),
                "visibility": near.visibility,
                "owner": near.owner,
                "score": round(found.scores[cid], 4),
            }
            for cid, near in found.cards.items()
            if found.scores[cid] > 0
        ]
    )


def readable_card(db: Db, uid: str, card_id: str) -> Card:
    """The card `card_id` if `uid` may read it; NotFound alike for a missing card and an unreadable one."""
    from cardchat.access import permissions
    from cardchat.repo import cards as card_repo

    card = permissions.readable_cards(card_repo.load_cards(db, [card_id]), uid).get(card_id)
    if card is None:
        raise NotFound("card not found")
    return card


def _vector(db: Db, card_id: str, text_hash: str, query_text: str) -> np.ndarray:
    """The card's stored vector for its current text, else its query text embedded now."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo import embeddings as emb_repo

    embedder = get_embedder()
    stored = emb_repo.load_embeddings(db, {card_id: text_hash}, embedder.model_id).get(card_id)
    return stored if stored is not None else embedder.embed_query(query_text)
