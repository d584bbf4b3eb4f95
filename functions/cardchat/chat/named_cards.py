"""Cards the question names by title, put first in a ranking (retrieval/named_titles.py says when a
title is named), for createChat's background and every follow-up's retrieval.

The retrieval index keeps a key of each card's title, so the named cards are found among the whole
collection by the keys of the question's phrases without reading a card; only those found are read
(what is read is kept with the pool, `Pool.loose`, so packing never reads it twice) and their titles
checked word for word. A loose card (read by id, not from an index) carries its key the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from cardchat.chat.candidates import Pool
    from cardchat.repo.db import Db


def named_first(db: Db, uid: str, pool: Pool, question: str, order: Sequence[int]) -> tuple[Pool, list[int]]:
    """`pool`, holding the cards read, and `order` (indices into it) with the cards `uid` may read whose
    title `question` names moved to the front, in `order`'s order; the rest keep their order."""
    from cardchat.access import permissions
    from cardchat.repo import cards as card_repo
    from cardchat.retrieval.named_titles import names, question_keys

    keys = np.fromiter((int(k, 16) for k in question_keys(question)), np.int64) if len(pool) else np.zeros(0, np.int64)
    found: list[int] = []
    for p in pool.parts:
        if len(p.snapshot.title_keys) == len(p.snapshot):
            found += p.positions[np.isin(p.snapshot.title_keys[p.rows], keys)].tolist()
    if not found:
        return pool, list(order)
    ids = [pool.ids[i] for i in found]
    need = [c for c in ids if c not in pool.loose]
    pool = replace(pool, loose={**(card_repo.load_cards(db, need) if need else {}), **pool.loose})
    readable = permissions.readable_cards(pool.loose, uid, ids)
    named = {i for i, c in zip(found, ids) if c in readable and names(question, readable[c].title)}
    return pool, [i for i in order if i in named] + [i for i in order if i not in named]
