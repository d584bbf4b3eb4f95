"""searchCards: the Cards page's text filter, on the server.

Typing a word finds cards the browser never loaded: the caller's cards
within scope, tag and visibility (the same resolver as a chat's collection,
chat/candidates.py, over the retrieval index, so nothing the caller may not
read is ever considered) ranked for the text by createChat's hybrid ranker (retrieval.rank: MiniLM
dense ⊕ BM25). Cards without a stored vector are ranked by BM25 alone;
a search embeds nothing but its text and writes nothing.

Bounded and rate-limited: it is a read that costs one query embedding, the
index's head document and the hits themselves (plus, when the scope takes
them, the cards others share with the caller, read directly; never anyone's
public cards but a followed owner's). The text is at most 500 characters,
the answer at most 50 cards, and its snippets at most SNIPPET_CHARS each;
each search takes a slot of its user's search minute (ratelimit.spend,
CARDCHAT_SEARCH_RATE_PER_MINUTE), after the request has been parsed, so a
malformed one spends none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from cardchat.parsing.requests import SearchCardsRequest

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np

    from cardchat.chat.collection import CardSource
    from cardchat.repo.db import Db
    from cardchat.schema.documents import Card

#: Characters of a result's snippet, the ellipses included.
SNIPPET_CHARS = 200
#: Hits read beyond the limit, to fill the places of cards gone since they were indexed.
READ_SLACK = 5
#: Occurrences of query terms looked at per card when placing its snippet.
MAX_OCCURRENCES = 400


@dataclass
class SearchResult:
    cards: list[dict[str, Any]] = field(default_factory=list)
    considered: int = 0  # cards the caller may read within scope, tag and visibility: all were ranked
    # of those, the cards holding one of the text's terms: what a chat over the
    # same query with this text is made from (chat/candidates.matching)
    matching: int = 0
    #: why the chosen source holds nothing (collection_query.OWNER_HAS_NO_PUBLIC_CARDS), else None
    empty_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"cards": self.cards, "considered": self.considered, "matching": self.matching}
        return {**out, "empty_reason": self.empty_reason} if self.empty_reason else out


@dataclass
class Found:
    """The best cards for a text: readable, in ranking order, each with its
    hybrid score and its cosine similarity to the text (None: not embedded)."""

    cards: dict[str, Card]
    scores: dict[str, float]
    similarity: dict[str, float | None]
    pool: Any  # candidates.Pool: every card considered


def best_cards(
    db: Db,
    uid: str,
    text: str,
    limit: int,
    source: CardSource,
    query_vec: np.ndarray | None = None,
    exclude: frozenset[str] = frozenset(),
) -> Found:
    """The `limit` best of `uid`'s cards within `source` (a query, or a chat's ids) for `text`,
    ranked over the retrieval index (chat/candidates.py) like a chat's collection; only the
    hits are read, and culled again on what was read. Shared by searchCards, the MCP tool
    search_cards, relatedCards and suggestFollowups (which pass cards' own vectors as
    `query_vec` and leave those cards out by `exclude`)."""
    from cardchat.access import permissions
    from cardchat.chat import candidates
    from cardchat.embeddings import get_embedder
    from cardchat.repo import cards as card_repo

    pool = candidates.resolve_source(db, uid, source, named=text)
    if not len(pool):
        return Found({}, {}, {}, pool)
    if query_vec is None:
        query_vec = get_embedder().embed_query(text)
    ranking = pool.rank(text, query_vec)
    # A few past the limit: a card deleted or withdrawn since it was indexed is dropped on reading.
    best = list(islice((i for i in ranking.order if pool.ids[i] not in exclude), limit + READ_SLACK))
    top = [pool.ids[i] for i in best]
    read = card_repo.load_cards(db, [c for c in top if c not in pool.loose])
    cards = permissions.readable_cards({**read, **{c: pool.loose[c] for c in top if c in pool.loose}}, uid, top)
    kept = dict(list(cards.items())[:limit])
    sims, has = pool.similarities(query_vec), pool.has_vector()
    return Found(
        kept,
        {pool.ids[i]: float(ranking.scores[i]) for i in best if pool.ids[i] in kept},
        {pool.ids[i]: float(sims[i]) if has[i] else None for i in best if pool.ids[i] in kept},
        pool,
    )


def search_cards(
    db: Db, uid: str, req: SearchCardsRequest, now: datetime | None = None, per_minute: int | None = None
) -> SearchResult:
    """The `req.limit` best of `uid`'s cards within `req.query` for `req.text`,
    each {id, title, snippet, tags, visibility, owner, score}; `score` is the
    hybrid ranker's (comparable within one answer only). With `considered` and
    `matching` (SearchResult) the page can say how many a chat would take.
    One slot of the user's search minute first (ResourceExhausted past it)."""
    from cardchat.access import ratelimit
    from cardchat.chat import candidates
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.schema.documents import SEARCH_WINDOW

    ratelimit.spend(db, uid, SEARCH_WINDOW, "searches", now, per_minute)

    found = best_cards(db, uid, req.text, req.limit, req.query)
    if not len(found.pool):
        return SearchResult(empty_reason=found.pool.empty_reason)
    hits = [
        {
            "id": cid,
            "title": card.title,
            "snippet": snippet(embeddable_and_hash(card.title, card.body)[0].partition("\n")[2], req.text),
            "tags": list(card.tags),
            "visibility": card.visibility,
            "owner": card.owner,
            "score": round(found.scores[cid], 4),
        }
        for cid, card in found.cards.items()
    ]
    return SearchResult(hits, len(found.pool), len(candidates.matching(found.pool, req.text)))


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
