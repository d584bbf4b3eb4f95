import numpy as np
import pytest

from cardchat.embeddings.base import normalise
from cardchat.retrieval.dense import rank_dense, similarities


def test_ranks_by_cosine_best_first():
    vectors = normalise(np.array([[1, 0, 0], [0.6, 0.8, 0], [0, 0, 1], [0.9, 0.1, 0]], dtype=np.float32))
    order = rank_dense(np.array([2.0, 0.0, 0.0]), vectors)  # an unnormalised query ranks the same
    assert order.tolist() == [0, 3, 1, 2]


def test_matches_a_brute_force_ranking_on_random_vectors():
    rng = np.random.default_rng(3)
    vectors = normalise(rng.normal(size=(2000, 384)))
    q = rng.normal(size=384)
    scores = np.array([float(np.dot(v.astype(np.float64), q) / np.linalg.norm(q)) for v in vectors])
    order = rank_dense(q, vectors)
    assert sorted(order.tolist()) == list(range(2000))
    # float32 may swap near-equal neighbours; the order is non-increasing within rounding.
    assert np.all(np.diff(scores[order]) <= 1e-5)
    assert order[:10].tolist() == np.argsort(-scores)[:10].tolist()
    assert np.allclose(similarities(q, vectors), scores, atol=1e-5)


def test_ties_keep_row_order_and_empty_is_empty():
    vectors = np.array([[0, 1], [1, 0], [1, 0], [0, 1]], dtype=np.float32)
    assert rank_dense(np.array([1.0, 0.0]), vectors).tolist() == [1, 2, 0, 3]
    assert rank_dense(np.array([1.0, 0.0]), np.empty((0, 2), dtype=np.float32)).tolist() == []


def test_dimension_mismatch_is_an_error():
    with pytest.raises(ValueError):
        rank_dense(np.ones(3), np.ones((4, 5), dtype=np.float32))
