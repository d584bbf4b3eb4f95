"""Many queries ranked over one candidate set: `index_snapshot.rank_pool`'s ranking for each, with
the set's postings gathered once and grouped by term.

`rank_pool` gathers the candidates' postings and scans all of them for each query term, which is
right for one query; a draft's hundreds of claims over one collection would repeat that gathering
and those scans per claim. Here the postings are sorted by term once, and each query scores over
an index holding only the postings of its own terms (and their compound relatives): BM25 reads
nothing else of an index but the candidates' lengths, which stay whole. The dense scores of a
group of queries are one product with the candidates' vectors, each converted to float32 once for
the group. Every ranking is the one `rank_pool` gives, its scores up to float32 rounding
(tests/retrieval/test_pool_ranker.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from cardchat.retrieval import bm25 as sparse
from cardchat.retrieval.rank import RankingConfig, fuse_scores

#: Queries whose dense scores `rank_all` computes together (a group's scores: QUERY_GROUP floats a candidate).
QUERY_GROUP = 64

if TYPE_CHECKING:
    from cardchat.retrieval.index_snapshot import Part
    from cardchat.retrieval.rank import Ranking


class PoolRanker:
    """The `n` candidates spread over `parts`, ready to be ranked for any number of queries."""

    def __init__(self, parts: Sequence[Part], n: int, config: RankingConfig | None = None) -> None:
        self._parts = parts
        self._config = config or RankingConfig()
        self._has_vector = np.zeros(n, bool)
        self._lengths = np.zeros(n, np.float32)
        for p in parts:
            self._has_vector[p.positions] = p.snapshot.has_vector[p.rows]
            self._lengths[p.positions] = p.snapshot.lengths[p.rows]
        self._avg_length = float(self._lengths.mean()) if n and self._lengths.mean() > 0 else 1.0
        gathered = [p.snapshot.postings(p.rows) for p in parts]
        doc = [p.positions[d].astype(np.int32) for p, (d, _, _) in zip(parts, gathered, strict=True)]
        term = np.concatenate([t for _, t, _ in gathered]) if gathered else np.zeros(0, np.int32)
        order = np.argsort(term, kind="stable")
        self._term = term[order]
        self._doc = np.concatenate(doc)[order] if doc else np.zeros(0, np.int32)
        self._tf = np.concatenate([f for _, _, f in gathered])[order] if gathered else np.zeros(0, np.float32)

    def _index_of(self, query: str) -> sparse.Index:
        """The postings of the query's terms and of their compound relatives, with every length."""
        bm25 = sparse.default_bm25()
        wanted: set[int] = set()
        for term in set(sparse.tokenize(query)):
            tid = bm25.vocab.ids.get(term)
            if tid is not None:
                wanted.add(tid)
            if self._config.compound_weight > 0 and len(term) >= sparse.MIN_COMPOUND and term.isalpha():
                wanted.update(bm25.vocab.related(term))
        ids = np.array(sorted(wanted), np.int32)
        lo, hi = np.searchsorted(self._term, ids, "left"), np.searchsorted(self._term, ids, "right")
        rows = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)]) if len(ids) else np.zeros(0, int)
        return sparse.Index(self._doc[rows], self._term[rows], self._tf[rows], self._lengths, self._avg_length)

    def rank_all(self, queries: Sequence[str], query_vecs: np.ndarray) -> list[Ranking]:
        """What `rank_pool(query, query_vec, parts, n, config)` answers, for each query with its vector
        (a row of `query_vecs`); the dense scores of
        QUERY_GROUP queries at a time: the candidates' vectors are converted once per group."""
        out: list[Ranking] = []
        for start in range(0, len(queries), QUERY_GROUP):
            group = list(queries[start : start + QUERY_GROUP])
            dense = None
            if self._dense_wanted():
                sims = np.zeros((len(group), len(self._lengths)), np.float64)
                for p in self._parts:
                    sims[:, p.positions] = p.snapshot.similarities_many(query_vecs[start : start + len(group)], p.rows)
                dense = np.where(self._has_vector, sims, -np.inf)
            out += [self._fused(q, None if dense is None else dense[i]) for i, q in enumerate(group)]
        return out

    def _dense_wanted(self) -> bool:
        return bool(self._has_vector.any()) and self._config.mode != "sparse"

    def _fused(self, query: str, dense: np.ndarray | None) -> Ranking:
        config, n = self._config, len(self._lengths)
        scores, bound = (
            sparse.default_bm25().scores_and_bound(query, self._index_of(query), config.compound_weight)
            if not (config.mode == "dense" and dense is not None)
            else (np.zeros(n, np.float32), 0.0)
        )
        return fuse_scores(query, dense, scores, bound, self._has_vector, config)
