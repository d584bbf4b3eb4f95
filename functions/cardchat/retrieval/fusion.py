"""Fusing the dense and BM25 rankings into one order.

Two ways, chosen by `RankingConfig.fusion` (scripts/eval measures both):

- Reciprocal Rank Fusion only needs each ranker's order: an item's fused
  score is sum_r weight_r / (k + rank_r(item)) with 1-based ranks; an item a
  ranker did not return gets nothing from it. A larger k flattens the head.
- Score fusion keeps how far apart the ranker put the items: each ranker's
  scores are mapped onto [0, 1] (min-max over the items it scored), then
  summed with weights. RRF gives the 1st and the 2nd of a ranker almost the
  same credit even when the ranker is sure of its 1st (a BM25 hit on an exact
  identifier, a near-duplicate question); score fusion does not.
- Bounded fusion (the default, `bounded_fusion`) maps each ranker's scores
  by the bounds they can reach rather than the ones this query reached:
  cosine similarity as it is (clipped at 0), BM25 divided by the most the
  query could score (Bruch et al. 2023, "theoretical min-max"). Min-max
  makes the best BM25 match worth 1 even when it matched one common word
  only, and lets one outlier stretch the scale of everything else; with the
  bounds, a card that matches every rare term of the question counts in
  full and a weak best match counts little. Measured with leave-one-set-out
  on the three eval sets (eval/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def rrf_scores(rankings: Sequence[Sequence[int]], weights: Sequence[float], n: int, k: int = 60) -> np.ndarray:
    """Fused score for items 0..n-1; `rankings` are item indices best-first."""
    if len(rankings) != len(weights):
        raise ValueError("one weight per ranking")
    scores = np.zeros(n, np.float64)
    for ranking, weight in zip(rankings, weights):
        order = np.asarray(ranking, dtype=np.int64)
        if len(order):
            scores[order] += weight / (k + np.arange(1, len(order) + 1, dtype=np.float64))
    return scores


def best_first(scores: np.ndarray) -> list[int]:
    """Items by descending score; ties (and items no ranker scored) keep
    index order, thanks to the stable sort."""
    order: list[int] = np.argsort(-scores, kind="stable").tolist()
    return order


def rrf(rankings: Sequence[Sequence[int]], weights: Sequence[float], n: int, k: int = 60) -> list[int]:
    """Items best-first by fused score; items no ranker returned come last,
    in index order (a stable sort keeps ties in index order too)."""
    return best_first(rrf_scores(rankings, weights, n, k))


def normalised(scores: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray:
    """`scores` mapped onto [0, 1] by min-max over the `valid` items (all by
    default); invalid items get 0. A ranker that scores every valid item the
    same tells nothing apart and contributes 0 everywhere."""
    scores = np.asarray(scores, dtype=np.float64)
    valid = np.ones(len(scores), bool) if valid is None else np.asarray(valid, bool)
    out = np.zeros(len(scores), np.float64)
    if not valid.any():
        return out
    kept = scores[valid]
    lo, hi = float(kept.min()), float(kept.max())
    if hi > lo:
        out[valid] = (kept - lo) / (hi - lo)
    return out


def score_fusion(
    scores: Sequence[np.ndarray], weights: Sequence[float], valid: Sequence[np.ndarray | None] | None = None
) -> np.ndarray:
    """Weighted sum of each ranker's normalised scores (see `normalised`);
    `valid[r]` marks the items ranker r scored at all (None: every item)."""
    if len(scores) != len(weights) or (valid is not None and len(valid) != len(scores)):
        raise ValueError("one weight (and one validity mask) per ranker")
    if not scores:
        raise ValueError("nothing to fuse")
    masks = valid if valid is not None else [None] * len(scores)
    fused = np.zeros(len(scores[0]), np.float64)
    for s, w, m in zip(scores, weights, masks):
        if len(s) != len(fused):
            raise ValueError("every ranker must score the same items")
        fused += w * normalised(s, m)
    return fused


def bounded_fusion(
    dense: np.ndarray, sparse: np.ndarray, sparse_bound: float, weights: Sequence[float], dense_valid: np.ndarray
) -> np.ndarray:
    """Weighted mean of the cosine similarities (negative ones, and items
    without a vector, as 0) and the BM25 scores over `sparse_bound`, the
    most the query could score (bm25.Bm25.scores_and_bound): each on an
    absolute [0, 1] scale, whatever the other items scored."""
    if len(weights) != 2 or len(dense) != len(sparse):
        raise ValueError("two weights, and both rankers scoring the same items")
    total = float(weights[0] + weights[1])
    if total <= 0:
        raise ValueError("the weights must not sum to zero")
    cosine = np.where(np.asarray(dense_valid, bool), np.maximum(np.asarray(dense, np.float64), 0.0), 0.0)
    matched = np.asarray(sparse, np.float64) / sparse_bound if sparse_bound > 0 else np.zeros(len(sparse))
    return (weights[0] * cosine + weights[1] * matched) / total
