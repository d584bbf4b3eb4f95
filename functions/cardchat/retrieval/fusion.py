"""Reciprocal Rank Fusion: combine rankings by rank, not by score.

Dense cosine similarities and BM25 scores live on incomparable scales; RRF
only needs each ranker's order. An item's fused score is
sum_r weight_r / (k + rank_r(item)) with 1-based ranks; an item a ranker did
not return gets nothing from it. A larger k flattens the head of each list.
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


def rrf(rankings: Sequence[Sequence[int]], weights: Sequence[float], n: int, k: int = 60) -> list[int]:
    """Items best-first by fused score; items no ranker returned come last,
    in index order (a stable sort keeps ties in index order too)."""
    scores = rrf_scores(rankings, weights, n, k)
    order: list[int] = np.argsort(-scores, kind="stable").tolist()
    return order
