"""search_cards: the user's own cards (the default collection everywhere), ranked for a query by the hybrid
ranker createChat uses (MiniLM dense ⊕ BM25) over the retrieval index, as
the searchCards callable ranks them (chat/card_search.py): only the hits are
read. Cards without a stored vector are ranked by BM25 alone, as createChat
ranks those past its embedding budget; a search writes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cardchat.parsing.collection_query import CollectionQuery

if TYPE_CHECKING:
    from cardchat.repo.db import Db

#: Characters of a card's text around its best match (chat/card_search.snippet).
SNIPPET_CHARS = 240


@dataclass
class Hit:
    id: str
    title: str
    tags: list[str]
    snippet: str
    #: cosine similarity of the card's embedding to the query (None: not embedded yet). The order
    #: is the hybrid one; this is how close the meaning is, on a scale a reader knows.
    score: float | None
    #: provenance.provenance: the card's owner, and whether it is someone else's
    owner: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hit = {"id": self.id, "title": self.title, "tags": self.tags, "snippet": self.snippet, "score": self.score}
        return {**hit, **self.owner}


def search_cards(db: Db, uid: str, query: str, limit: int, collection: CollectionQuery | None = None) -> list[Hit]:
    """The `limit` best cards of `collection` (default: `uid`'s own) for `query`: searchCards'
    ranking over the retrieval index (chat/card_search.best_cards), never a read of the whole
    collection."""
    from cardchat.chat.card_search import best_cards, snippet
    from cardchat.embeddings import text
    from cardchat.mcpserver.provenance import as_shown, provenance

    found = best_cards(db, uid, query, limit, collection or CollectionQuery())
    hits = []
    for cid, card in found.cards.items():
        flat = text.embeddable_and_hash(card.title, card.body)[0]
        similarity = found.similarity[cid]
        hits.append(
            Hit(
                id=cid,
                title=as_shown(card, uid, card.title),
                tags=list(card.tags),
                snippet=as_shown(card, uid, snippet(flat.partition("\n")[2] or flat, query, SNIPPET_CHARS)),
                score=round(similarity, 4) if similarity is not None else None,
                owner=provenance(card, uid),
            )
        )
    return hits
