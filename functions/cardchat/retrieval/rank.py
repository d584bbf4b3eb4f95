"""Which cards go into a chat's background first: dense, sparse or both.

Dense (embedding) ranking finds paraphrases that share no word with a card;
BM25 finds the exact terms (`--onto`, `ORIG_HEAD`, a product code) that an
embedding blurs. Hybrid fuses the two: by scores on absolute scales (the
default), by min-max normalised scores or by Reciprocal Rank Fusion (see
fusion.py). `scripts/eval` measures them on the labelled
sets in eval/sets/; the defaults are the ones those numbers favour (the
eval/README.md says which sets tuned them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ParamSpec

import numpy as np

from cardchat.retrieval import bm25 as sparse
from cardchat.retrieval import function_words, fusion

P = ParamSpec("P")
MODES = ("dense", "sparse", "hybrid")
FUSIONS = ("bounded", "scores", "rrf")


@dataclass
class RankingConfig:
    """`dense_weight`/`sparse_weight` weigh the two rankers in every fusion
    (only their ratio matters); `rrf_k` is used by RRF only. `fusion`:
    "bounded" (fusion.bounded_fusion, the default), "scores" (min-max
    normalised, the default before) or "rrf"; 0.6 / 0.4 was chosen for
    bounded fusion by leave-one-set-out on the eval sets (eval/README.md)."""

    mode: str = "hybrid"
    fusion: str = "bounded"
    rrf_k: int = 60
    dense_weight: float = 0.6
    sparse_weight: float = 0.4
    compound_weight: float = 0.4
    by_language: bool = True

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown ranking mode {self.mode!r}: expected one of {', '.join(MODES)}")
        if self.fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {self.fusion!r}: expected one of {', '.join(FUSIONS)}")


@dataclass
class Ranking:
    """`order`: indices into the card list, best first, every card once.
    `scores`: per card (input order), the score that produced `order`: the
    fused score in hybrid bounded or min-max score fusion (in [0, 1]), the RRF score, or the dense
    cosine / BM25 score of a single-ranker mode. Comparable within one
    ranking only."""

    order: list[int]
    scores: np.ndarray = field(repr=False)


def _dense_similarities(query_vec: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    from cardchat.retrieval.dense import similarities

    return np.asarray(similarities(query_vec, vectors), dtype=np.float64)


def sparse_scores(
    query: str,
    card_ids: Sequence[str],
    texts: Sequence[str],
    text_hashes: Sequence[str] | None = None,
    compound_weight: float = 0.4,
) -> np.ndarray:
    """BM25 score per card (0 for no match), through the per-process cache."""
    return _sparse(query, card_ids, texts, text_hashes, compound_weight)[0]


def _sparse(
    query: str,
    card_ids: Sequence[str],
    texts: Sequence[str],
    text_hashes: Sequence[str] | None,
    compound_weight: float,
) -> tuple[np.ndarray, float]:
    """BM25 scores and the most the query could score (Bm25.scores_and_bound)."""
    bm25 = sparse.default_bm25()
    if text_hashes is None:
        # Python caches a str's hash on the object, and this is only the cache key.
        text_hashes = [str(hash(t)) for t in texts]
    index = bm25.index(card_ids, text_hashes, texts)
    return bm25.scores_and_bound(query, index, compound_weight)


def rank_with_scores(
    query: str,
    query_vec: np.ndarray | None,
    card_ids: Sequence[str],
    texts: Sequence[str],
    vectors: np.ndarray | None,
    has_vector: np.ndarray | None,
    config: RankingConfig | None = None,
    text_hashes: Sequence[str] | None = None,
) -> Ranking:
    """Every card's place, best first, and the score behind it (see `Ranking`).

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
    dense = None
    if query_vec is not None and vectors is not None and bool(np.any(has_vector)) and config.mode != "sparse":
        # Rows without a vector are scored too and masked afterwards: cheaper
        # than copying the embedded rows out of a 10,000 x 384 matrix.
        dense = np.where(has_vector, _dense_similarities(query_vec, vectors), -np.inf)
    if config.mode == "dense" and dense is not None:
        return Ranking(fusion.best_first(dense), dense)
    sparse_, bound = _sparse(query, card_ids, texts, text_hashes, config.compound_weight)
    return fuse_scores(query, dense, sparse_, bound, has_vector, config)


def _order_only(ranker: Callable[P, Ranking]) -> Callable[P, list[int]]:
    def rank_cards(*args: P.args, **kwargs: P.kwargs) -> list[int]:
        return ranker(*args, **kwargs).order

    return rank_cards


#: `rank_with_scores`'s order alone: indices into card_ids, best first, every card exactly once.
rank_cards = _order_only(rank_with_scores)


def fuse_scores(
    query: str,
    dense: np.ndarray | None,
    sparse_: np.ndarray,
    bound: float,
    has_vector: np.ndarray,
    config: RankingConfig,
) -> Ranking:
    """The ranking from each card's dense similarity (-inf where it has no
    vector; None: no dense ranker), BM25 score and the most the query could
    score (`bound`): the one place the two meet, for `rank_with_scores` and
    for the retrieval index (index_snapshot.py). The dense weight shrinks with
    the share of the query not written in English, which the English dense
    model reads poorly (function_words.py)."""
    n = len(sparse_)
    if config.mode == "dense" and dense is not None:
        return Ranking(fusion.best_first(dense), dense)
    if config.mode != "hybrid" or dense is None:
        return Ranking(fusion.best_first(sparse_.astype(np.float64)), sparse_)
    english = function_words.english_share(query) if config.by_language else 1.0
    weights = [config.dense_weight * english, config.sparse_weight]
    if config.fusion == "bounded":
        fused = fusion.bounded_fusion(dense, sparse_, bound, weights, has_vector)
    elif config.fusion == "rrf":
        dense_order = fusion.best_first(dense)[: int(has_vector.sum())]
        fused = fusion.rrf_scores([dense_order, _sparse_order(sparse_)], weights, n, config.rrf_k)
    else:
        fused = fusion.score_fusion([dense, sparse_], weights, [has_vector, None])
    return Ranking(fusion.best_first(fused), fused)


def _sparse_order(scores: np.ndarray) -> list[int]:
    matched = np.flatnonzero(scores > 0)
    order: list[int] = matched[np.argsort(-scores[matched], kind="stable")].tolist()
    return order
