"""Score fusion and normalisation: pure arithmetic, no index or model."""

from __future__ import annotations

import numpy as np
import pytest

from cardchat.retrieval import fusion


def test_normalised_is_min_max_over_the_valid_items():
    out = fusion.normalised(np.array([2.0, 4.0, 3.0, 100.0]), np.array([True, True, True, False]))
    assert out.tolist() == [0.0, 1.0, 0.5, 0.0]  # the invalid 100 neither stretches the scale nor scores


def test_normalised_flat_or_empty_rankers_contribute_nothing():
    assert fusion.normalised(np.array([3.0, 3.0])).tolist() == [0.0, 0.0]
    assert fusion.normalised(np.array([1.0, 2.0]), np.array([False, False])).tolist() == [0.0, 0.0]
    assert fusion.normalised(np.array([-np.inf, 0.5, 0.25]), np.array([False, True, True])).tolist() == [0, 1, 0]


def test_score_fusion_weighs_normalised_scores():
    fused = fusion.score_fusion([np.array([0.0, 1.0, 0.5]), np.array([10.0, 0.0, 5.0])], [0.25, 0.75])
    assert np.allclose(fused, [0.75, 0.25, 0.5])


def test_score_fusion_rewards_what_both_rankers_rate_highly_where_rrf_does_not():
    # Dense near-ties items 0 and 2; BM25 near-ties items 1 and 2. Item 2 is
    # close to the best in both, yet third and second by rank.
    dense = np.array([0.80, 0.20, 0.79])
    bm25 = np.array([0.0, 12.0, 11.9])
    assert fusion.best_first(fusion.score_fusion([dense, bm25], [1.0, 1.0]))[0] == 2
    rrf_first = fusion.rrf([fusion.best_first(dense), [1, 2]], [1.0, 1.0], 3)[0]
    assert rrf_first == 1


def test_score_fusion_rejects_misaligned_input():
    with pytest.raises(ValueError):
        fusion.score_fusion([np.zeros(2)], [1.0, 1.0])
    with pytest.raises(ValueError):
        fusion.score_fusion([np.zeros(2), np.zeros(3)], [1.0, 1.0])
    with pytest.raises(ValueError):
        fusion.score_fusion([], [])


def test_best_first_keeps_index_order_for_ties():
    assert fusion.best_first(np.array([0.0, 1.0, 0.0, 1.0])) == [1, 3, 0, 2]


def test_bounded_fusion_keeps_absolute_scales():
    # Cosine as it is (negative and missing vectors count 0), BM25 over the
    # most the query could score; weights normalised to sum to 1.
    fused = fusion.bounded_fusion(
        np.array([0.5, -0.3, 0.9]), np.array([2.0, 4.0, 0.0]), 8.0, [0.6, 0.4], np.array([True, True, False])
    )
    assert np.allclose(fused, [0.6 * 0.5 + 0.4 * 0.25, 0.4 * 0.5, 0.0])
    assert np.allclose(fusion.bounded_fusion(np.array([0.2]), np.array([0.0]), 0.0, [3, 2], np.array([True])), [0.12])


def test_bounded_fusion_gives_a_weak_best_match_little_where_min_max_gives_it_all():
    # Item 0 is the only BM25 match but matched a tenth of what the query
    # could; item 1 is closer in meaning. Min-max makes the weak match worth
    # 1 and puts item 0 first; the bound does not.
    dense, bm25, has = np.array([0.30, 0.40, 0.0]), np.array([1.0, 0.0, 0.0]), np.ones(3, bool)
    assert fusion.best_first(fusion.score_fusion([dense, bm25], [0.6, 0.4]))[0] == 0
    assert fusion.best_first(fusion.bounded_fusion(dense, bm25, 10.0, [0.6, 0.4], has))[0] == 1


def test_bounded_fusion_rejects_bad_input():
    one = np.zeros(1)
    with pytest.raises(ValueError):
        fusion.bounded_fusion(one, np.zeros(2), 1.0, [1, 1], np.ones(1, bool))
    with pytest.raises(ValueError):
        fusion.bounded_fusion(one, one, 1.0, [1], np.ones(1, bool))
    with pytest.raises(ValueError):
        fusion.bounded_fusion(one, one, 1.0, [0, 0], np.ones(1, bool))
