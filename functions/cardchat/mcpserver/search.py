"""search_cards: the cards a user may view, ranked for a query by the hybrid
ranker createChat uses (retrieval.rank.rank_cards: MiniLM dense ⊕ BM25,
RRF). Cards without a stored vector are ranked by BM25 alone, as createChat
ranks those past its embedding budget; a search writes nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cardchat.retrieval.dense import vector_matrix
from cardchat.schema import Card

#: Characters of a card's text around the first query word it contains.
SNIPPET_CHARS = 240
_WORD = re.compile(r"\w{3,}")


@dataclass
class Hit:
    id: str
    title: str
    tags: list[str]
    snippet: str
    #: cosine similarity of the card's embedding to the query (None: not embedded yet). The order
    #: is the hybrid one; this is how close the meaning is, on a scale a reader knows.
    score: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "tags": self.tags, "snippet": self.snippet, "score": self.score}


def snippet(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    """A window of `text` (the card's embeddable text, Markdown stripped)
    around the first query word it contains, else its opening."""
    flat = " ".join(text.split())
    lower = flat.lower()
    starts = [i for w in _WORD.findall(query.lower()) if (i := lower.find(w)) >= 0]
    start = max(0, min(starts) - size // 4) if starts else 0
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    piece = flat[start : start + size]
    return ("…" if start else "") + piece + ("…" if start + size < len(flat) else "")


def search_cards(db: Any, uid: str, query: str, limit: int) -> list[Hit]:

    from cardchat.embeddings import get_embedder, text
    from cardchat.repo import embeddings as emb_repo
    from cardchat.repo import listings
    from cardchat.retrieval import rank as retrieval
    from cardchat.retrieval.dense import similarities

    cards: dict[str, Card] = listings.visible_cards(db, uid)
    if not cards:
        return []
    ids = list(cards)
    pairs = [text.embeddable_and_hash(cards[c].title, cards[c].body) for c in ids]
    texts, hashes = [p[0] for p in pairs], [p[1] for p in pairs]
    embedder = get_embedder()
    vectors = emb_repo.load_embeddings(db, dict(zip(ids, hashes)), embedder.model_id)
    matrix, has_vector = vector_matrix(vectors, ids, embedder.dim)
    query_vec = embedder.embed_query(query)
    order = retrieval.rank_cards(query, query_vec, ids, texts, matrix, has_vector, text_hashes=hashes)[:limit]
    sims = similarities(query_vec, matrix)
    return [
        Hit(
            id=ids[i],
            title=cards[ids[i]].title,
            tags=list(cards[ids[i]].tags),
            snippet=snippet(texts[i].partition("\n")[2] or texts[i], query),
            score=round(float(sims[i]), 4) if has_vector[i] else None,
        )
        for i in order
    ]
