"""A retrieval index in memory, ranked without any card's text.

A `Snapshot` is the column form of one owner's index at one version (or of
a few loose entries, for cards that are not in it): ids, text hashes,
text-less cards for culling, int8 vectors and scales, and flat BM25 postings
in the process vocabulary's term ids. `rank_pool` ranks a candidate set
drawn from one or more snapshots exactly as `rank.rank_with_scores` ranks
the same cards in the same order (dequantised vectors, the same BM25
statistics over the candidate set, the same fusion: `rank.fuse_scores`).

The vectors are held as the shards store them, int8 with one scale a row
(38 MB at 100,000 cards of 384 dimensions; dequantised to float32 they would
take four times that, most of a cold function's memory): a query converts CHUNK rows at a
time to float32, multiplies them by the query and the products by the
scales (one conversion per component per query: tens of ms at 100,000 cards).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from cardchat.retrieval import bm25 as sparse
from cardchat.retrieval.index_entries import Entry, Packed, header_stamps, header_titles
from cardchat.schema.documents import Card

if TYPE_CHECKING:
    from cardchat.parsing.collection_query import CollectionQuery
    from cardchat.retrieval.rank import Ranking, RankingConfig

#: Rows converted to float32 at a time for the dense scores (a 12 MB block at 384 dimensions).
CHUNK = 8192


@dataclass
class Snapshot:
    owner: str
    ids: list[str]
    hashes: list[str]
    cards: list[Card]  # title and body empty: access fields and tags only; shared between rows, never changed
    has_vector: np.ndarray  # bool
    scales: np.ndarray  # float32, 0 without a vector
    vectors: np.ndarray  # int8 (n, dim), times `scales` row by row (zero rows without a vector)
    row_start: np.ndarray  # int64 (n + 1): row r's postings are [row_start[r], row_start[r + 1])
    term: np.ndarray  # int32, process vocabulary ids
    tf: np.ndarray  # float32
    lengths: np.ndarray  # float32, per row
    chars: np.ndarray  # int64, len(title) + len(body) per row
    row_of: dict[str, int] = field(default_factory=dict)
    #: per row its title's key (index_entries.Entry.title_key) as a number, 0 for none: the cards a
    #: question names (named_titles.py); eight bytes a card, where a dict of strings took over a hundred
    title_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: per row the card's `updated_stamp` as indexed, 0 for unknown (index_entries.Entry.updated)
    stamps: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
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
        arrays = (
            self.has_vector,
            self.scales,
            self.vectors,
            self.row_start,
            self.term,
            self.tf,
            self.lengths,
            self.title_keys,
            self.stamps,
        )
        return int(sum(a.nbytes for a in arrays))

    def similarities(self, query_vec: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Cosine similarity of `rows` to the query: each int8 row times the
        unit query, times the row's scale (float64 like rank.py; equal to
        `dense.similarities` over the dequantised vectors up to float32 rounding)."""
        if self.dim == 0:  # nothing embedded when these entries were written: every row is masked
            return np.zeros(len(rows), np.float64)
        q = np.asarray(query_vec, np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise ValueError(f"query has {q.shape[0]} dimensions, the index {self.dim}")
        norm = float(np.linalg.norm(q))
        q = q / norm if norm > 0 else q
        if len(rows) * 4 < len(self):  # a few rows: only those
            picked = np.asarray(rows, np.int64)
            few: np.ndarray = (self.vectors[picked].astype(np.float32) @ q * self.scales[picked]).astype(np.float64)
            return few
        # Every row, CHUNK at a time through one float32 buffer (no float copy of the whole
        # matrix), then the rows asked for.
        sims = np.empty(len(self), np.float32)
        buf = np.empty((min(CHUNK, len(self)), self.dim), np.float32)
        for start in range(0, len(self), CHUNK):
            stop = min(len(self), start + CHUNK)
            block = buf[: stop - start]
            block[...] = self.vectors[start:stop]
            np.matmul(block, q, out=sims[start:stop])
        sims *= self.scales
        out: np.ndarray = sims.astype(np.float64)[rows]
        return out

    def similarities_many(self, queries: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """`similarities` of `rows` to each of `queries` (m x dim), as m x len(rows): each row is
        converted to float32 once for them all, CHUNK rows at a time."""
        if self.dim == 0:
            return np.zeros((len(queries), len(rows)), np.float64)
        q = np.asarray(queries, np.float32).reshape(len(queries), -1)
        if q.shape[1] != self.dim:
            raise ValueError(f"queries have {q.shape[1]} dimensions, the index {self.dim}")
        norms = np.linalg.norm(q, axis=1, keepdims=True)
        q = (q / np.where(norms > 0, norms, 1.0)).astype(np.float32)
        picked = np.asarray(rows, np.int64)
        out = np.empty((len(q), len(picked)), np.float32)
        for start in range(0, len(picked), CHUNK):
            some = picked[start : start + CHUNK]
            out[:, start : start + len(some)] = (q @ self.vectors[some].astype(np.float32).T) * self.scales[some]
        return out.astype(np.float64)

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

    def tagged(self, tag: str) -> np.ndarray:
        """Per row, whether the card carries `tag` (bool, cached per tag like `admitted`)."""
        key = ("", "#tag", tag, None)
        with self._lock:
            found = self._masks.get(key)
        if found is None:
            found = np.fromiter((tag in c.tags for c in self.cards), bool, len(self.cards))
            with self._lock:
                self._masks[key] = found
        return found

    def admitted(self, query: CollectionQuery, uid: str) -> np.ndarray:
        """Rows in `query`'s collection for `uid` by everything but its text
        (`CollectionQuery.admits`, which culls by `Card.visible_to`), in row order."""
        key = (uid, query.scope, query.tag, query.visibility)
        with self._lock:
            found = self._masks.get(key)
        if found is None:
            verdict: dict[int, bool] = {}  # rows share their Card objects: one admits() per distinct one

            def admits(c: Card) -> bool:
                seen = verdict.get(id(c))
                if seen is None:
                    seen = verdict[id(c)] = query.admits(c, uid)
                return seen

            found = np.flatnonzero(np.fromiter((admits(c) for c in self.cards), bool, len(self.cards)))
            with self._lock:
                self._masks[key] = found
        return found


def from_packed(owner: str, shards: Sequence[Packed]) -> Snapshot:
    """One snapshot of the shards in order (rows: each shard's entries in turn),
    decoded straight into arrays of the final size: no per-shard copies to join."""
    vocab = sparse.default_bm25().vocab
    n = sum(len(p.header["ids"]) for p in shards)
    total = sum(len(p.term_idx) for p in shards)
    dim = max((p.dim for p in shards), default=0)
    cols = _Columns.empty(n, total, dim)
    ids: list[str] = []
    hashes: list[str] = []
    titles: list[str] = []
    stamps: list[int] = []
    cards: list[Card] = []
    # One text-less Card per distinct (visibility, viewers, tags): read-only, and most cards share one.
    shared: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Card] = {}
    at = pos = 0
    for p in shards:
        h = p.header
        k, m = len(h["ids"]), len(p.term_idx)
        ids += h["ids"]
        hashes += h["hashes"]
        titles += header_titles(h)
        stamps += header_stamps(h)
        for v, w, t in zip(h["vis"], h["viewers"], h["tags"]):
            key = (v, tuple(w), tuple(t))
            card = shared.get(key)
            if card is None:
                card = shared[key] = Card(title="", body="", owner=owner, visibility=v, viewers=list(w), tags=list(t))
            cards.append(card)
        mask = np.asarray(h["has_vec"], bool).reshape(k)
        cols.has_vec[at : at + k] = mask
        if mask.any():
            rows = at + np.flatnonzero(mask)
            cols.scales[rows] = p.scales
            cols.vectors[rows] = p.vectors
        cols.chars[at : at + k] = np.asarray(h["chars"], np.int64).reshape(k)
        cols.nterms[at : at + k] = np.asarray(h["nterms"], np.int64).reshape(k)
        if m:
            local = np.fromiter((vocab.id(t) for t in h["vocab"]), np.int32, len(h["vocab"]))
            np.take(local, p.term_idx, out=cols.term[pos : pos + m])
            cols.tf[pos : pos + m] = p.tf
        at, pos = at + k, pos + m
    return _assemble(owner, ids, hashes, cards, cols, titles, stamps)


def from_entries(owner: str, entries: Sequence[Entry], dim: int) -> Snapshot:
    """A snapshot of loose entries (cards read directly, not from an index)."""
    vocab = sparse.default_bm25().vocab
    cols = _Columns.empty(len(entries), sum(len(e.terms) for e in entries), dim)
    pos = 0
    for i, e in enumerate(entries):
        if e.vector is not None:
            cols.has_vec[i], cols.scales[i], cols.vectors[i] = True, e.scale, e.vector
        cols.chars[i], cols.nterms[i] = e.chars, len(e.terms)
        cols.term[pos : pos + len(e.terms)] = [vocab.id(t) for t in e.terms]
        cols.tf[pos : pos + len(e.terms)] = e.tf
        pos += len(e.terms)
    ids, hashes, titles = [e.id for e in entries], [e.text_hash for e in entries], [e.title_key for e in entries]
    stamps = [e.updated for e in entries]
    return _assemble(owner, ids, hashes, [e.card(owner) for e in entries], cols, titles, stamps)


@dataclass
class _Columns:
    """A snapshot's arrays at their final size, filled in place."""

    has_vec: np.ndarray
    scales: np.ndarray
    vectors: np.ndarray
    nterms: np.ndarray
    term: np.ndarray
    tf: np.ndarray
    chars: np.ndarray

    @staticmethod
    def empty(n: int, postings: int, dim: int) -> _Columns:
        return _Columns(
            has_vec=np.zeros(n, bool),
            scales=np.zeros(n, np.float32),
            vectors=np.zeros((n, dim), np.int8),
            nterms=np.zeros(n, np.int64),
            term=np.zeros(postings, np.int32),
            tf=np.zeros(postings, np.float32),
            chars=np.zeros(n, np.int64),
        )


def _assemble(
    owner: str,
    ids: list[str],
    hashes: list[str],
    cards: list[Card],
    cols: _Columns,
    titles: list[str],
    stamps: list[int],
) -> Snapshot:
    row_start = np.zeros(len(ids) + 1, np.int64)
    np.cumsum(cols.nterms, out=row_start[1:])
    # A document's length is its tf summed (bm25.Bm25.doc_terms); title-weighted counts are whole
    # numbers, so summing them in another order gives the same float32.
    lengths = np.zeros(len(ids), np.float32)
    filled = cols.nterms > 0
    if filled.any():
        lengths[filled] = np.add.reduceat(cols.tf, row_start[:-1][filled])
    return Snapshot(
        owner=owner,
        ids=ids,
        hashes=hashes,
        cards=cards,
        has_vector=cols.has_vec,
        scales=cols.scales,
        vectors=cols.vectors,
        row_start=row_start,
        term=cols.term,
        tf=cols.tf,
        lengths=lengths,
        chars=cols.chars,
        title_keys=np.fromiter((int(k, 16) if k else 0 for k in titles), np.int64, len(titles)),
        stamps=np.asarray(stamps, np.int64).reshape(len(ids)),
    )


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
    return fuse_scores(query, dense, scores, bound, has_vector, config)


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
