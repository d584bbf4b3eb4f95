"""Dense ranking: cards by cosine similarity to the question.

Vectors are unit length (embeddings.base.normalise), so cosine similarity is a
dot product: one matrix-vector product for the whole collection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def similarities(query_vec: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of `vectors` (unit rows) to `query_vec`."""
    q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(q))
    if norm > 0:
        q = q / norm
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.size == 0:
        return np.empty(0, dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[1] != q.shape[0]:
        raise ValueError(f"query has {q.shape[0]} dimensions, vectors have shape {vectors.shape}")
    return vectors @ q


def rank_dense(query_vec: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Row indices of `vectors`, most similar first; ties keep row order."""
    scores = similarities(query_vec, vectors)
    return np.argsort(-scores, kind="stable")


def vector_matrix(vectors: Mapping[str, np.ndarray], ids: Sequence[str], dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The (n, dim) float32 matrix of `ids`' vectors, in order, and which rows
    hold one: cards without a vector keep a zero row (ranked by BM25 alone)."""
    has_vector = np.array([c in vectors for c in ids], dtype=bool)
    matrix = np.zeros((len(ids), dim), dtype=np.float32)
    for i, cid in enumerate(ids):
        if has_vector[i]:
            matrix[i] = vectors[cid]
    return matrix, has_vector
