"""Candidate pairs of findOverlaps from the index's int8 vectors (retrieval/neighbours.py): each
card's nearest above the floor, each pair once, most similar first; cards without a vector in none."""

from __future__ import annotations

import numpy as np

from cardchat.retrieval import neighbours
from cardchat.retrieval.neighbours import nearest_pairs, same_hash_pairs


def quantised(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    scales = np.abs(unit).max(axis=1) / 127
    return np.round(unit / scales[:, None]).astype(np.int8), scales.astype(np.float32)


def test_the_nearest_pairs_above_the_floor_are_found_once_most_similar_first(monkeypatch):
    rng = np.random.default_rng(7)
    base = rng.normal(size=(6, 32))
    rows = np.vstack([base, base[0] + 0.05 * rng.normal(size=32), base[3] + 0.3 * rng.normal(size=32)])
    vectors, scales = quantised(rows)
    has = np.ones(len(rows), bool)
    for block in (neighbours.BLOCK_ELEMENTS, 8):  # blocks of one row at a time: the same pairs
        monkeypatch.setattr(neighbours, "BLOCK_ELEMENTS", block)
        pairs = nearest_pairs(vectors, scales, has, 2, 0.8)
        assert [(i, j) for i, j, _ in pairs] == [(0, 6), (3, 7)]
        assert pairs[0][2] > pairs[1][2] > 0.8


def test_a_card_without_a_vector_is_in_no_pair():
    vectors, scales = quantised(np.ones((3, 8)) + np.eye(3, 8) * 0.01)
    has = np.array([True, False, True])
    assert [(i, j) for i, j, _ in nearest_pairs(vectors, scales, has, 5, 0.5)] == [(0, 2)]
    assert nearest_pairs(vectors, scales, np.array([True, False, False]), 5, 0.0) == []


def test_cards_with_the_same_text_hash_pair_with_the_first_of_them():
    assert same_hash_pairs(["h1", "h2", "h1", "h3", "h1"]) == [(0, 2), (0, 4)]
