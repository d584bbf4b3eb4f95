"""rank_cards: the three modes, cards without vectors, and the BM25 cache."""

from __future__ import annotations

import numpy as np
import pytest

from cardchat.retrieval import bm25 as sparse
from cardchat.retrieval.rank import RankingConfig, fuse_scores, rank_cards, rank_with_scores


def _unit(v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


IDS = ["onto", "para", "novec", "other"]
TEXTS = [
    "git rebase options\nuse --onto to choose the new base",
    "Moving work\ntransplant a line of development to another starting point",
    "Rebase notes\n--onto newbase, without an embedding yet",
    "Unrelated\ncooking pasta with tomatoes",
]
VECS = np.stack([_unit([0.2, 1, 0]), _unit([1, 0.1, 0]), np.zeros(3, np.float32), _unit([0, 0, 1])])
HAS = np.array([True, True, False, True])
QVEC = _unit([1, 0, 0])  # closest to "para", then "onto"


def test_dense_mode_orders_by_similarity_and_puts_unembedded_last():
    order = rank_cards("--onto", QVEC, IDS, TEXTS, VECS, HAS, RankingConfig(mode="dense"))
    assert order == [1, 0, 3, 2]


def test_sparse_mode_orders_by_bm25_then_input_order():
    order = rank_cards("--onto", QVEC, IDS, TEXTS, VECS, HAS, RankingConfig(mode="sparse"))
    assert set(order[:2]) == {0, 2} and order[2:] == [1, 3]


@pytest.mark.parametrize("how", ["scores", "rrf"])
def test_hybrid_fuses_and_ranks_unembedded_cards_by_sparse(how):
    # Scores: the default weights; RRF: plain, equal weights (what hybrid used before).
    config = (
        RankingConfig(fusion="scores")
        if how == "scores"
        else RankingConfig(fusion="rrf", dense_weight=1.0, sparse_weight=1.0)
    )
    order = rank_cards("--onto", QVEC, IDS, TEXTS, VECS, HAS, config)
    assert 2 in order[:3]  # no vector, but found by its exact term
    assert order[-1] == 3 and sorted(order) == [0, 1, 2, 3]
    if how == "rrf":
        assert order[0] == 0  # second in dense, first or second in sparse: by rank only, that wins
    else:
        assert order[0] == 1  # dense, weighted 0.6, is far surer of "para" (cosine 0.99 vs 0.2)


@pytest.mark.parametrize("how", ["scores", "rrf"])
def test_weights_change_the_fusion(how):
    dense_heavy = RankingConfig(mode="hybrid", fusion=how, dense_weight=5.0, sparse_weight=1.0, rrf_k=1)
    assert rank_cards("--onto", QVEC, IDS, TEXTS, VECS, HAS, dense_heavy)[0] == 1
    sparse_heavy = RankingConfig(mode="hybrid", fusion=how, dense_weight=1.0, sparse_weight=5.0, rrf_k=1)
    assert rank_cards("--onto", QVEC, IDS, TEXTS, VECS, HAS, sparse_heavy)[0] in (0, 2)


def test_rank_with_scores_gives_the_order_and_the_score_behind_it():
    hybrid = rank_with_scores("--onto", QVEC, IDS, TEXTS, VECS, HAS)
    assert hybrid.order == rank_cards("--onto", QVEC, IDS, TEXTS, VECS, HAS)
    assert hybrid.scores.shape == (4,) and float(hybrid.scores.max()) <= 1.0  # weights sum to 1
    assert list(np.argsort(-hybrid.scores, kind="stable")) == hybrid.order
    dense = rank_with_scores("--onto", QVEC, IDS, TEXTS, VECS, HAS, RankingConfig(mode="dense"))
    assert np.isclose(dense.scores[1], float(VECS[1] @ QVEC)) and dense.scores[2] == -np.inf


def test_without_query_vector_falls_back_to_sparse():
    order = rank_cards("pasta", None, IDS, TEXTS, None, None, RankingConfig(mode="hybrid"))
    assert order[0] == 3 and sorted(order) == [0, 1, 2, 3]


def test_default_mode_is_hybrid_and_bad_mode_rejected():
    assert RankingConfig().mode == "hybrid"
    with pytest.raises(ValueError):
        RankingConfig(mode="magic")
    with pytest.raises(ValueError):
        RankingConfig(fusion="magic")
    with pytest.raises(ValueError):
        rank_cards("q", None, IDS, TEXTS[:2], None, None)


def test_text_hashes_key_the_cache():
    bm = sparse.default_bm25()
    rank_cards("pasta", None, IDS, TEXTS, None, None, text_hashes=["a", "b", "c", "d"])
    assert (IDS[3], "d") in bm._docs
    # A changed text under a new hash is re-tokenised, not served stale.
    texts = TEXTS[:3] + ["Unrelated\nnow about risotto"]
    order = rank_cards("risotto", None, IDS, texts, None, None, text_hashes=["a", "b", "c", "d2"])
    assert order[0] == 3


def test_default_fusion_is_bounded_and_its_scores_are_absolute():
    assert RankingConfig().fusion == "bounded"
    hybrid = rank_with_scores("--onto", QVEC, IDS, TEXTS, VECS, HAS)
    # "other" is orthogonal to the question and shares no word: 0, not the min-max floor of a scale.
    assert hybrid.scores[3] == 0.0 and 0.0 < hybrid.scores[2] < 0.4  # no vector: BM25's share only
    assert hybrid.order[0] == 1  # cosine 0.99 at weight 0.6 beats a partial BM25 match


@pytest.mark.parametrize("how", ["bounded", "scores", "rrf"])
def test_the_dense_weight_follows_the_question_s_language(how):
    # The dense ranker is sure of card 0, BM25 of card 1: an English question follows the
    # dense ranker's weight, a French one (which the English model reads poorly) BM25.
    dense = np.array([0.9, 0.1])
    scores, bound = np.array([0.5, 4.0], np.float32), 5.0
    has = np.array([True, True])
    config = RankingConfig(fusion=how, rrf_k=1, dense_weight=0.8, sparse_weight=0.2)
    assert fuse_scores("how do I create the directories", dense, scores, bound, has, config).order == [0, 1]
    assert fuse_scores("créer les répertoires", dense, scores, bound, has, config).order == [1, 0]
    fixed = RankingConfig(fusion=how, rrf_k=1, dense_weight=0.8, sparse_weight=0.2, by_language=False)
    assert fuse_scores("créer les répertoires", dense, scores, bound, has, fixed).order == [0, 1]
