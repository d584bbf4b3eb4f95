"""findOverlaps: where a collection disagrees with itself, for the Review cards page.

The collection is the caller's choice, as for a search (chat/candidates.py: their own cards unless
they chose another scope, or one of their saved collections), so nothing they may not read or did
not choose is looked at, and the work grows with that collection only. Its pairs come from the
retrieval index without reading a card: each card's few nearest by the stored int8 vectors, and
cards with the same text hash (retrieval/neighbours.py). Only those pairs' cards are read, most
similar first, a round at a time until `limit` pairs are found or MAX_CARDS_READ cards were read;
retrieval/disagreement.py judges each pair. Outdated cards are left out (they were dealt with).
One slot of the caller's search minute, once the request and the collection are found valid.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from datetime import datetime

    from cardchat.chat.candidates import Pool
    from cardchat.chat.collection import CardSource
    from cardchat.parsing.overlap_requests import FindOverlapsRequest
    from cardchat.repo.db import Db

#: Each card's nearest cards looked at, and how similar a neighbour must be to be compared at all.
NEIGHBOURS = 5
NEAR_SIMILARITY = 0.6
#: Cards read at most for one review: the pairs beyond are left for a narrower collection.
MAX_CARDS_READ = 2000
#: Pairs whose cards are read together.
ROUND_PAIRS = 100


@dataclass
class OverlapsResult:
    pairs: list[dict[str, str]] = field(default_factory=list)
    considered: int = 0  # cards in the collection
    compared: int = 0  # pairs whose texts were compared
    read: int = 0  # cards whose text was needed

    def to_dict(self) -> dict[str, Any]:
        return {"pairs": self.pairs}


def find_overlaps(
    db: Db, uid: str, req: FindOverlapsRequest, now: datetime | None = None, per_minute: int | None = None
) -> OverlapsResult:
    """Up to `req.limit` pairs {a, b, kind, reason} of `uid`'s chosen cards: `duplicate` or
    `may_conflict` (retrieval/disagreement.py), the most similar first."""
    from cardchat.access import ratelimit
    from cardchat.chat import candidates
    from cardchat.schema.documents import SEARCH_WINDOW

    source = _source(db, uid, req)
    ratelimit.spend(db, uid, SEARCH_WINDOW, "searches", now, per_minute)
    pool = candidates.resolve_source(db, uid, source)
    result = OverlapsResult(considered=len(pool))
    _judge(db, uid, pool, near_pairs(pool), req.limit, result)
    return result


def _source(db: Db, uid: str, req: FindOverlapsRequest) -> CardSource:
    from cardchat.chat import saved_collections

    if req.collection_id is None:
        return req.query
    return saved_collections.source_of(db, uid, req.collection_id)


def near_pairs(pool: Pool) -> list[tuple[str, str, float]]:
    """The pool's candidate pairs (a, b, cosine): same text hash first, then nearest neighbours;
    cards tagged outdated in none."""
    from cardchat.retrieval.neighbours import nearest_pairs, same_hash_pairs
    from cardchat.schema.documents import OUTDATED_TAG

    n = len(pool)
    dim = max((p.snapshot.dim for p in pool.parts), default=0)
    vectors, scales = np.zeros((n, dim), np.int8), np.zeros(n, np.float32)
    has, outdated, hashes = np.zeros(n, bool), np.zeros(n, bool), [""] * n
    for p in pool.parts:
        outdated[p.positions] = p.snapshot.tagged(OUTDATED_TAG)[p.rows]
        for pos, row in zip(p.positions.tolist(), p.rows.tolist(), strict=True):
            hashes[pos] = p.snapshot.hashes[row]
        if p.snapshot.dim == dim and dim:
            vectors[p.positions] = p.snapshot.vectors[p.rows]
            scales[p.positions] = p.snapshot.scales[p.rows]
            has[p.positions] = p.snapshot.has_vector[p.rows]
    current = np.flatnonzero(~outdated)
    seen: set[tuple[int, int]] = set()
    out = []
    same = same_hash_pairs([hashes[i] for i in current.tolist()])
    near = nearest_pairs(vectors[current], scales[current], has[current], NEIGHBOURS, NEAR_SIMILARITY)
    for i, j, sim in [(i, j, 1.0) for i, j in same] + near:
        if (i, j) not in seen:
            seen.add((i, j))
            out.append((pool.ids[int(current[i])], pool.ids[int(current[j])], sim))
    return out


def _judge(db: Db, uid: str, pool: Pool, pairs: list[tuple[str, str, float]], limit: int, out: OverlapsResult) -> None:
    """Compare `pairs` in order, reading their cards a round at a time, until `limit` are kept."""
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.retrieval.disagreement import compare

    texts: dict[str, str | None] = {}
    for start in range(0, len(pairs), ROUND_PAIRS):
        chunk = pairs[start : start + ROUND_PAIRS]
        wanted = [c for a, b, _ in chunk for c in (a, b) if c not in texts]
        if out.read + len(set(wanted)) > MAX_CARDS_READ:
            return
        for cid, card in _readable(db, uid, pool, wanted).items():
            texts[cid] = embeddable_and_hash(card.title, card.body)[0] if card else None
        out.read = len(texts)
        for a, b, sim in chunk:
            ta, tb = texts.get(a), texts.get(b)
            verdict = compare(ta, tb, sim) if ta is not None and tb is not None else None
            out.compared += 1
            if verdict:
                out.pairs.append({"a": a, "b": b, "kind": verdict.kind, "reason": verdict.reason})
                if len(out.pairs) >= limit:
                    return


def _readable(db: Db, uid: str, pool: Pool, ids: list[str]) -> dict[str, Any]:
    """Each of `ids` whole if `uid` may still read it, else None: kept text first, then one read."""
    from cardchat.access import permissions
    from cardchat.chat import card_texts
    from cardchat.repo import cards as card_repo

    ids = list(dict.fromkeys(ids))
    found = {c: pool.loose.get(c) or pool.kept_card(c) for c in ids}
    missing = [c for c, k in found.items() if k is None]
    read = card_repo.load_cards(db, missing) if missing else {}
    card_texts.remember(read.items())
    readable = permissions.readable_cards({**{c: k for c, k in found.items() if k}, **read}, uid, ids)
    return {c: readable.get(c) for c in ids}
