"""Many queries over one candidate set (retrieval/pool_ranker.py) rank exactly as rank_pool ranks
each alone: the same order and scores, over one snapshot or two, in every mode."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_index_snapshot import DIM, _deck

from cardchat.retrieval.index_entries import encode_shard, make_entry, unpack_shard
from cardchat.retrieval.index_snapshot import Part, from_entries, from_packed, rank_pool
from cardchat.retrieval.pool_ranker import PoolRanker
from cardchat.retrieval.rank import RankingConfig

QUERIES = [
    "rebase onto HEAD~3",
    "pensioen",  # a compound's relative (partnerpensioen) scores too
    "moon tides",
    "core.autocrlf NullPointer",
    "sourdough",  # no candidate holds it
    "",
]


def _parts(seed: int) -> tuple[list[Part], int]:
    """A shuffled candidate set spread over a stored snapshot and loose entries."""
    ids, cards, vectors = _deck(160, seed=seed)
    entries = {c: make_entry(c, cards[c], vectors.get(c)) for c in ids}
    own = from_packed("me", [unpack_shard(encode_shard([entries[c] for c in ids[:100]], DIM))])
    loose = from_entries("me", [entries[c] for c in ids[100:]], DIM)
    chosen = random.Random(seed).sample(ids, 130)
    pos = {c: i for i, c in enumerate(chosen)}
    in_own = [c for c in chosen if c in own.row_of]
    in_loose = [c for c in chosen if c not in own.row_of]
    loose_row = {c: i for i, c in enumerate(ids[100:])}
    return [
        Part(own, np.array([own.row_of[c] for c in in_own]), np.array([pos[c] for c in in_own])),
        Part(loose, np.array([loose_row[c] for c in in_loose]), np.array([pos[c] for c in in_loose])),
    ], len(chosen)


@pytest.mark.parametrize("config", [None, RankingConfig(fusion="rrf"), RankingConfig(mode="sparse")])
def test_each_query_ranks_as_rank_pool_ranks_it_alone(config):
    parts, n = _parts(seed=13)
    vecs = np.random.default_rng(9).normal(size=(len(QUERIES), DIM)).astype(np.float32)
    for query, qvec, got in zip(QUERIES, vecs, PoolRanker(parts, n, config).rank_all(QUERIES, vecs), strict=True):
        want = rank_pool(query, qvec, parts, n, config)
        assert got.order == want.order, query
        np.testing.assert_allclose(got.scores, want.scores, rtol=1e-5, atol=1e-7)  # float32 products, grouped


@pytest.mark.parametrize("config", [None, RankingConfig(mode="dense")])
def test_queries_ranked_together_rank_as_each_alone(config, monkeypatch):
    from cardchat.retrieval import pool_ranker

    monkeypatch.setattr(pool_ranker, "QUERY_GROUP", 4)  # groups of four, the last one short
    parts, n = _parts(seed=17)
    vecs = np.random.default_rng(5).normal(size=(len(QUERIES) * 2, DIM)).astype(np.float32)
    vecs[3] = 0.0  # a query the embedder cannot read (mostly Chinese or Japanese): no dense signal
    queries = QUERIES * 2
    got = PoolRanker(parts, n, config).rank_all(queries, vecs)
    for query, vec, ranking in zip(queries, vecs, got, strict=True):
        want = rank_pool(query, vec, parts, n, config)
        assert ranking.order == want.order, query
        np.testing.assert_allclose(ranking.scores, want.scores, rtol=1e-5, atol=1e-7)
