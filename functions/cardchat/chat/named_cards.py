"""Cards the question names by title, put first in a ranking (retrieval/named_titles.py says when a
title is named), for createChat's background and every follow-up's retrieval.

A named card shares every word of its title with the question, and BM25 weighs title words three
times, so it is among the question's best keyword matches: only those (the best SHORTLIST by BM25
alone) are read and their titles compared, never the whole collection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardchat.chat.candidates import Pool

#: The best keyword matches whose titles are compared with the question.
SHORTLIST = 32


def named_first(db: Any, uid: str, pool: Pool, question: str, order: Sequence[int]) -> list[int]:
    """`order` (indices into `pool`) with the cards `uid` may read whose title `question` names
    moved to the front, best keyword match first; the rest keep their order."""
    from cardchat.access import permissions
    from cardchat.repo import cards as card_repo
    from cardchat.retrieval.named_titles import names

    if not len(pool) or not question.strip():
        return list(order)
    keyword = pool.rank(question, None)  # no query vector: BM25 alone
    shortlist = [i for i in keyword.order[:SHORTLIST] if keyword.scores[i] > 0]
    ids = [pool.ids[i] for i in shortlist]
    need = [c for c in ids if c not in pool.loose]
    found = {**(card_repo.load_cards(db, need) if need else {}), **pool.loose}
    readable = permissions.readable_cards(found, uid, ids)
    named = [i for i, c in zip(shortlist, ids) if c in readable and names(question, readable[c].title)]
    if not named:
        return list(order)
    first = set(named)
    return named + [i for i in order if i not in first]
