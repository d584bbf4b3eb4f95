"""A retrieval index in memory, ranked without any card's text (issue 21).

A `Snapshot` is the column form of one owner's index at one version (or of
a few loose entries, for cards that are not in it): ids, text hashes,
text-less cards for culling, int8 vectors and scales, and flat BM25 postings
in the process vocabulary's term ids. `rank_pool` ranks a candidate set
drawn from one or more snapshots exactly as `rank.rank_with_scores` ranks
the same cards in the same order (dequantised vectors, the same BM25
statistics over the candidate set, the same fusion: `rank.fuse_scores`).

The vectors are held dequantised (float32, 154 MB at 100,000 cards of 384
dimensions; the shards' int8 form is what is stored and read): a query is one
matrix-vector product instead of dequantising on every call.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from cardchat.retrieval import bm25 as sparse
from cardchat.retrieval.index_entries import Entry, Packed, dequantise
from cardchat.schema import Card

if TYPE_CHECKING:
    from cardchat.collection_query import CollectionQuery
    from cardchat.retrieval.rank import Ranking, RankingConfig

#: Rows dequantised at a time for the dense scores (a 12 MB float32 block at 384 dimensions).
CHUNK = 8192


@dataclass
class Snapshot:
    owner: str
    ids: list[str]
    hashes: list[str]
    cards: list[Card]  # title and body empty: access fields and tags only
    has_vector: np.ndarray  # bool
    scales: np.ndarray  # float32, 0 without a vector
    vectors: np.ndarray  # float32 (n, dim), dequantised once (zero rows without a vector)
    row_start: np.ndarray  # int64 (n + 1): row r's postings are [row_start[r], row_start[r + 1])
    term: np.ndarray  # int32, process vocabulary ids
    tf: np.ndarray  # float32
    lengths: np.ndarray  # float32, per row
    chars: np.ndarray  # int64, len(title) + len(body) per row
    row_of: dict[str, int] = field(default_factory=dict)
    _masks: dict[tuple[str, str, str | None, str | None], np.ndarray] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _docs: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.row_of:
            self.row_of = {c: i for i, c in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1]) if self.vectors.ndim == 2 else 0

    def nbytes(self) -> int:
        arrays = (self.has_vector, self.scales, self.vectors, self.row_start, self.term, self.tf, self.lengths)
        return int(sum(a.nbytes for a in arrays))

    def similarities(self, query_vec: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Cosine similarity of `rows` to the query, as `dense.similarities`
        computes it over the dequantised vectors (float64, like rank.py;
        equal to rounding: BLAS may sum a row differently in a larger product)."""
        from cardchat.retrieval.dense import similarities

        if self.dim == 0:  # nothing embedded when these entries were written: every row is masked
            return np.zeros(len(rows), np.float64)
        # One product over every row, then the rows asked for: cheaper than copying them out.
        sims: np.ndarray = np.asarray(similarities(query_vec, self.vectors), np.float64)[rows]
        return sims

    def postings(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(doc, term, tf) of `rows`, doc numbering the rows 0..len(rows)-1."""
        if len(rows) == len(self) and np.array_equal(rows, np.arange(len(self))):
            return self._all_docs(), self.term, self.tf  # the whole index in order: no copy
        starts = self.row_start[rows]
        counts = self.row_start[rows + 1] - starts
        total = int(counts.sum())
        doc = np.repeat(np.arange(len(rows), dtype=np.int32), counts)
        offsets = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(total, dtype=np.int64)
        return doc, self.term[offsets], self.tf[offsets]

    def _all_docs(self) -> np.ndarray:
        with self._lock:
            if self._docs is None:
                counts = np.diff(self.row_start)
                self._docs = np.repeat(np.arange(len(self), dtype=np.int32), counts)
            return self._docs

    def admitted(self, query: CollectionQuery, uid: str) -> np.ndarray:
        """Rows in `query`'s collection for `uid` by everything but its text
        (`CollectionQuery.admits`, which culls by `Card.visible_to`), in row order."""
        key = (uid, query.scope, query.tag, query.visibility)
        with self._lock:
            found = self._masks.get(key)
        if found is None:
            found = np.flatnonzero(np.fromiter((query.admits(c, uid) for c in self.cards), bool, len(self.cards)))
            with self._lock:
                self._masks[key] = found
        return found


def from_packed(owner: str, shards: Sequence[Packed]) -> Snapshot:
    """One snapshot of the shards in order (rows: each shard's entries in turn)."""
    vocab = sparse.default_bm25().vocab
    ids: list[str] = []
    hashes: list[str] = []
    cards: list[Card] = []
    has_vec: list[np.ndarray] = []
    scales: list[np.ndarray] = []
    vectors: list[np.ndarray] = []
    nterms: list[np.ndarray] = []
    terms: list[np.ndarray] = []
    tfs: list[np.ndarray] = []
    chars: list[np.ndarray] = []
    dim = max((p.dim for p in shards), default=0)
    for p in shards:
        h = p.header
        n = len(h["ids"])
        ids += h["ids"]
        chars.append(np.asarray(h["chars"], np.int64).reshape(n))
        hashes += h["hashes"]
        cards += [
            Card(title="", body="", owner=owner, visibility=v, viewers=list(w), tags=list(t))
            for v, w, t in zip(h["vis"], h["viewers"], h["tags"])
        ]
        mask = np.asarray(h["has_vec"], bool).reshape(n)
        has_vec.append(mask)
        s = np.zeros(n, np.float32)
        s[mask] = p.scales
        scales.append(s)
        vecs = np.zeros((n, dim), np.int8)
        if mask.any():
            vecs[mask] = p.vectors
        vectors.append(vecs)
        local = np.fromiter((vocab.id(t) for t in h["vocab"]), np.int32, len(h["vocab"]))
        terms.append(local[p.term_idx.astype(np.int64)] if len(p.term_idx) else np.zeros(0, np.int32))
        tfs.append(np.asarray(p.tf, np.float32))
        nterms.append(np.asarray(h["nterms"], np.int64).reshape(n))
    return _assemble(owner, ids, hashes, cards, has_vec, scales, vectors, nterms, terms, tfs, chars, dim)


def from_entries(owner: str, entries: Sequence[Entry], dim: int) -> Snapshot:
    """A snapshot of loose entries (cards read directly, not from an index)."""
    vocab = sparse.default_bm25().vocab
    cards = [e.card(owner) for e in entries]
    has = np.array([e.vector is not None for e in entries], bool)
    vecs = np.zeros((len(entries), dim), np.int8)
    for i, e in enumerate(entries):
        if e.vector is not None:
            vecs[i] = e.vector
    return _assemble(
        owner,
        [e.id for e in entries],
        [e.text_hash for e in entries],
        cards,
        [has],
        [np.array([e.scale for e in entries], np.float32)],
        [vecs],
        [np.array([len(e.terms) for e in entries], np.int64)],
        [np.fromiter((vocab.id(t) for e in entries for t in e.terms), np.int32)],
        [np.concatenate([e.tf for e in entries]).astype(np.float32) if entries else np.zeros(0, np.float32)],
        [np.array([e.chars for e in entries], np.int64)],
        dim,
    )


def _assemble(
    owner: str,
    ids: list[str],
    hashes: list[str],
    cards: list[Card],
    has_vec: list[np.ndarray],
    scales: list[np.ndarray],
    vectors: list[np.ndarray],
    nterms: list[np.ndarray],
    terms: list[np.ndarray],
    tfs: list[np.ndarray],
    chars: list[np.ndarray],
    dim: int,
) -> Snapshot:
    counts = np.concatenate(nterms) if nterms else np.zeros(0, np.int64)
    row_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    tf = np.concatenate(tfs) if tfs else np.zeros(0, np.float32)
    # A document's length is its tf summed (bm25.Bm25.doc_terms); title-weighted counts are whole
    # numbers, so summing them in another order gives the same float32.
    lengths = np.zeros(len(ids), np.float32)
    filled = counts > 0
    if filled.any():
        lengths[filled] = np.add.reduceat(tf, row_start[:-1][filled])
    return Snapshot(
        owner=owner,
        ids=ids,
        hashes=hashes,
        cards=cards,
        has_vector=np.concatenate(has_vec) if has_vec else np.zeros(0, bool),
        scales=np.concatenate(scales) if scales else np.zeros(0, np.float32),
        vectors=_dequantised(vectors, scales, dim),
        row_start=row_start,
        term=np.concatenate(terms) if terms else np.zeros(0, np.int32),
        tf=tf,
        lengths=lengths,
        chars=np.concatenate(chars) if chars else np.zeros(0, np.int64),
    )


def _dequantised(vectors: list[np.ndarray], scales: list[np.ndarray], dim: int) -> np.ndarray:
    """The int8 rows times their scales as one float32 matrix, CHUNK rows at a
    time (no float temporary of the whole matrix): 1.5 KB a card at 384
    dimensions, and a query is then one matrix-vector product."""
    n = sum(len(v) for v in vectors)
    out = np.empty((n, dim), np.float32)
    at = 0
    for v, s in zip(vectors, scales):
        for start in range(0, len(v), CHUNK):
            block = v[start : start + CHUNK]
            out[at : at + len(block)] = dequantise(block, s[start : start + CHUNK])
            at += len(block)
    return out


@dataclass
class Part:
    """Some rows of one snapshot, and where each goes in the candidate order."""

    snapshot: Snapshot
    rows: np.ndarray  # int64
    positions: np.ndarray  # int64, same length


def rank_pool(
    query: str, query_vec: np.ndarray | None, parts: Sequence[Part], n: int, config: RankingConfig | None = None
) -> Ranking:
    """The `n` candidates (spread over `parts`) ranked for `query`: the same
    `Ranking` as `rank.rank_with_scores` over these cards in candidate order."""
    from cardchat.retrieval.rank import RankingConfig, fuse_scores

    config = config or RankingConfig()
    has_vector = np.zeros(n, bool)
    lengths = np.zeros(n, np.float32)
    for p in parts:
        has_vector[p.positions] = p.snapshot.has_vector[p.rows]
        lengths[p.positions] = p.snapshot.lengths[p.rows]
    dense = None
    if query_vec is not None and bool(has_vector.any()) and config.mode != "sparse":
        sims = np.zeros(n, np.float64)
        for p in parts:
            sims[p.positions] = p.snapshot.similarities(query_vec, p.rows)
        dense = np.where(has_vector, sims, -np.inf)
    scores, bound = (
        sparse_scores_and_bound(query, parts, lengths, config.compound_weight)
        if not (config.mode == "dense" and dense is not None)
        else (np.zeros(n, np.float32), 0.0)
    )
    return fuse_scores(dense, scores, bound, has_vector, config)


def sparse_scores(query: str, parts: Sequence[Part], lengths: np.ndarray, compound_weight: float = 0.4) -> np.ndarray:
    """BM25 per candidate with the statistics of the whole candidate set."""
    return sparse_scores_and_bound(query, parts, lengths, compound_weight)[0]


def sparse_scores_and_bound(
    query: str, parts: Sequence[Part], lengths: np.ndarray, compound_weight: float = 0.4
) -> tuple[np.ndarray, float]:
    """`sparse_scores`, and the most a candidate could score (bm25.Bm25.scores_and_bound)."""
    gathered = [p.snapshot.postings(p.rows) for p in parts]
    in_order = len(parts) == 1 and np.array_equal(parts[0].positions, np.arange(len(parts[0].positions)))
    index = sparse.Index(
        doc=gathered[0][0]
        if in_order
        else np.concatenate([p.positions[d].astype(np.int32) for p, (d, _, _) in zip(parts, gathered)])
        if gathered
        else np.zeros(0, np.int32),
        term=np.concatenate([t for _, t, _ in gathered]) if gathered else np.zeros(0, np.int32),
        tf=np.concatenate([f for _, _, f in gathered]) if gathered else np.zeros(0, np.float32),
        lengths=lengths,
        avg_length=float(lengths.mean()) if len(lengths) and lengths.mean() > 0 else 1.0,
    )
    return sparse.default_bm25().scores_and_bound(query, index, compound_weight)
