"""searchCards: the Cards page's text filter, on the server (issue 21).

Typing a word finds cards the browser never loaded: the caller's cards
within scope, tag and visibility (the same resolver as a chat's collection,
chat/collection.py, so nothing the caller may not read is ever considered)
ranked for the text by createChat's hybrid ranker (retrieval.rank: MiniLM
dense ⊕ BM25). Cards without a stored vector are ranked by BM25 alone;
a search embeds nothing but its text and writes nothing.

Bounded rather than rate-limited: it is a read that costs one query
embedding and the reads of the caller's own collection, as a page load of
the Cards page does. The text is at most 500 characters, the answer at most
50 cards, and its snippets at most SNIPPET_CHARS each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cardchat.parsing import SearchCardsRequest

#: Characters of a result's snippet, the ellipses included.
SNIPPET_CHARS = 200
#: Occurrences of query terms looked at per card when placing its snippet.
MAX_OCCURRENCES = 400


@dataclass
class SearchResult:
    cards: list[dict[str, Any]] = field(default_factory=list)
    considered: int = 0  # cards the caller may read within scope, tag and visibility: all were ranked
    # of those, the cards holding one of the text's terms: what a chat over the
    # same query with this text is made from (chat/collection.text_matches)
    matching: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"cards": self.cards, "considered": self.considered, "matching": self.matching}


def search_cards(db: Any, uid: str, req: SearchCardsRequest) -> SearchResult:
    """The `req.limit` best of `uid`'s cards within `req.query` for `req.text`,
    each {id, title, snippet, tags, visibility, owner, score}; `score` is the
    hybrid ranker's (comparable within one answer only). With `considered` and
    `matching` (SearchResult) the page can say how many a chat would take."""
    from cardchat.chat import collection
    from cardchat.embeddings import get_embedder
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.repo import embeddings as emb_repo
    from cardchat.retrieval import rank as retrieval
    from cardchat.retrieval.dense import vector_matrix

    cards = collection.resolve(db, uid, req.query)
    if not cards:
        return SearchResult()
    ids = list(cards)
    pairs = [embeddable_and_hash(cards[c].title, cards[c].body) for c in ids]
    texts, hashes = [p[0] for p in pairs], [p[1] for p in pairs]
    embedder = get_embedder()
    vectors = emb_repo.load_embeddings(db, dict(zip(ids, hashes)), embedder.model_id)
    matrix, has_vector = vector_matrix(vectors, ids, embedder.dim)
    ranking = retrieval.rank_with_scores(
        req.text, embedder.embed_query(req.text), ids, texts, matrix, has_vector, text_hashes=hashes
    )
    hits = []
    for i in ranking.order[: req.limit]:
        card = cards[ids[i]]
        hits.append(
            {
                "id": ids[i],
                "title": card.title,
                "snippet": snippet(texts[i].partition("\n")[2], req.text),
                "tags": list(card.tags),
                "visibility": card.visibility,
                "owner": card.owner,
                "score": round(float(ranking.scores[i]), 4),
            }
        )
    matching = int((retrieval.sparse_scores(req.text, ids, texts, hashes) > 0).sum())  # the index is cached
    return SearchResult(hits, len(ids), matching)


def snippet(body: str, query: str, size: int = SNIPPET_CHARS) -> str:
    """At most `size` characters of `body` (its words, Markdown stripped)
    around its best match for `query`: the window holding the most distinct
    query terms, the earliest of equals; the opening when none occurs. An
    ellipsis marks a cut at either end."""
    from cardchat.retrieval.bm25 import tokenize

    flat = " ".join(body.split())
    if len(flat) <= size:
        return flat
    terms = set(tokenize(query))
    found: list[tuple[int, str]] = []
    for term in terms:
        for m in re.finditer(rf"(?<!\w){re.escape(term)}", flat, re.IGNORECASE):
            found.append((m.start(), term))
            if len(found) >= MAX_OCCURRENCES:
                break
    found.sort()
    lead = size // 5  # the window opens a little before its first match
    best, best_terms = 0, 0
    for k, (start, _) in enumerate(found):
        covered = set()
        for s, t in found[k:]:  # sorted: the occurrences in this window, then stop
            if s + len(t) > start + size - lead - 4:
                break
            covered.add(t)
        if len(covered) > best_terms:
            best, best_terms = start, len(covered)
    return _window(flat, max(0, best - lead), size)


def _window(flat: str, start: int, size: int) -> str:
    """`size` characters of `flat` from about `start`, cut at spaces where one is near, with ellipses."""
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    start = min(start, max(0, len(flat) - (size - 1)))
    lead = "…" if start else ""
    room = size - len(lead)
    if start + room >= len(flat):
        return lead + flat[start:]
    piece = flat[start : start + room - 1]
    space = piece.rfind(" ")
    piece = piece[:space] if space > room // 2 else piece
    return lead + piece + "…"
