"""Which cards go into a chat's background first: dense, sparse or both.

Dense (embedding) ranking finds paraphrases that share no word with a card;
BM25 finds the exact terms (`--onto`, `ORIG_HEAD`, a product code) that an
embedding blurs. Hybrid fuses the two orders with Reciprocal Rank Fusion.
`scripts/eval` measures the three on the labelled sets in eval/sets/; the
default mode is the one those numbers favour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cardchat.retrieval import bm25 as sparse
from cardchat.retrieval import fusion

MODES = ("dense", "sparse", "hybrid")


@dataclass
class RankingConfig:
    mode: str = "hybrid"
    rrf_k: int = 60
    dense_weight: float = 1.0
    sparse_weight: float = 1.0
    compound_weight: float = 0.4

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown ranking mode {self.mode!r}: expected one of {', '.join(MODES)}")


def _dense_order(query_vec: np.ndarray, vectors: np.ndarray, has_vector: np.ndarray) -> list[int]:
    from cardchat.retrieval.dense import rank_dense

    # Rank every row and drop the ones without a vector afterwards: cheaper
    # than copying the embedded rows out of a 10,000 x 384 matrix.
    order = np.asarray(rank_dense(query_vec, vectors), dtype=np.int64)
    kept: list[int] = order[has_vector[order]].tolist()
    return kept


def sparse_scores(
    query: str,
    card_ids: Sequence[str],
    texts: Sequence[str],
    text_hashes: Sequence[str] | None = None,
    compound_weight: float = 0.4,
) -> np.ndarray:
    """BM25 score per card (0 for no match), through the per-process cache."""
    bm25 = sparse.default_bm25()
    if text_hashes is None:
        # Python caches a str's hash on the object, and this is only the cache key.
        text_hashes = [str(hash(t)) for t in texts]
    index = bm25.index(card_ids, text_hashes, texts)
    return bm25.scores(query, index, compound_weight)


def _sparse_order(scores: np.ndarray) -> list[int]:
    matched = np.flatnonzero(scores > 0)
    order: list[int] = matched[np.argsort(-scores[matched], kind="stable")].tolist()
    return order


def rank_cards(
    query: str,
    query_vec: np.ndarray | None,
    card_ids: Sequence[str],
    texts: Sequence[str],
    vectors: np.ndarray | None,
    has_vector: np.ndarray | None,
    config: RankingConfig | None = None,
    text_hashes: Sequence[str] | None = None,
) -> list[int]:
    """Indices into card_ids, best first, every card exactly once.

    `texts` are `text.embeddable_text(title, body)` (first line = title);
    `vectors` is (n, dim) aligned with card_ids, rows valid where
    `has_vector`; `text_hashes` (the cards' `text.text_hash`) key the BM25
    cache, pass them when you have them. Cards without a vector are ranked by
    BM25 alone in hybrid mode and come last in dense mode. Without a query
    vector (or any vector) dense and hybrid fall back to sparse. Cards that
    no ranker placed keep their input order at the end.
    """
    config = config or RankingConfig()
    n = len(card_ids)
    if len(texts) != n:
        raise ValueError("texts must align with card_ids")
    if has_vector is None:
        has_vector = np.ones(n, bool) if vectors is not None else np.zeros(n, bool)
    usable_dense = query_vec is not None and vectors is not None and bool(np.any(has_vector))
    dense = None
    if usable_dense and query_vec is not None and vectors is not None and config.mode != "sparse":
        dense = _dense_order(query_vec, vectors, has_vector)

    if config.mode == "dense" and dense is not None:
        return fusion.rrf([dense], [1.0], n)
    scores = sparse_scores(query, card_ids, texts, text_hashes, config.compound_weight)
    sparse_order = _sparse_order(scores)
    if config.mode == "hybrid" and dense is not None:
        return fusion.rrf([dense, sparse_order], [config.dense_weight, config.sparse_weight], n, config.rrf_k)
    return fusion.rrf([sparse_order], [1.0], n)
