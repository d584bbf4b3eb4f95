"""Pairs of near cards in a collection, from the retrieval index's int8 vectors alone.

Each card's nearest few by cosine similarity (`nearest_pairs`), computed a block of rows at a time
against the whole collection, so the work is one matrix product over the collection and never a
look at every pair's text: only the pairs kept here are ever read. Cards with the same text hash are
pairs too (`same_hash_pairs`), vector or not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Elements of one block of similarities (rows by collection): bounds the memory a block takes.
BLOCK_ELEMENTS = 4_000_000


def nearest_pairs(
    vectors: np.ndarray, scales: np.ndarray, has: np.ndarray, k: int, floor: float
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) with i < j at `floor` or above, for each row i its `k` most similar rows after
    it, most similar first. `vectors` are int8 rows times `scales` (the index's form); rows without
    a vector (`has` false) are in no pair. Each block of rows is compared with the rows from its own
    start on (the upper triangle: half the products), and only the similarities at the floor are
    sorted (a threshold, not a partition of every row)."""
    rows = np.flatnonzero(has)
    m = len(rows)
    if m < 2 or k < 1:
        return []
    unit = vectors[rows].astype(np.float32) * scales[rows].astype(np.float32)[:, None]
    step = max(1, BLOCK_ELEMENTS // m)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for start in range(0, m, step):
        stop = min(m, start + step)
        sims = unit[start:stop] @ unit[start:].T
        square = sims[:, : stop - start]
        square[np.tril_indices(stop - start)] = -np.inf  # each pair once, never a card with itself
        r, c = np.nonzero(sims >= floor)
        found.append(_best_per_row(r + start, c + start, sims[r, c], k))
    i, j, v = (np.concatenate(parts) for parts in zip(*found, strict=True))
    order = np.lexsort((j, i, -v))
    return [(int(rows[i[o]]), int(rows[j[o]]), float(v[o])) for o in order.tolist()]


def _best_per_row(r: np.ndarray, c: np.ndarray, v: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The `k` highest `v` of each row `r` (its columns `c`)."""
    order = np.lexsort((-v, r))
    r, c, v = r[order], c[order], v[order]
    first = np.searchsorted(r, r, side="left")
    keep = np.arange(len(r)) - first < k
    return r[keep], c[keep], v[keep].astype(np.float64)


def same_hash_pairs(hashes: Sequence[str]) -> list[tuple[int, int]]:
    """(first, other) for each card whose text hash an earlier card has: the same text."""
    first: dict[str, int] = {}
    out = []
    for i, h in enumerate(hashes):
        if h in first:
            out.append((first[h], i))
        else:
            first[h] = i
    return out
