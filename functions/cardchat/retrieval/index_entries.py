"""The per-owner retrieval index's entries and their packed form.

One entry per card holds what ranking and culling need without the card's
text: its id and text hash, who may read it (visibility, viewers), its tags,
its BM25 term statistics (the terms and title-weighted frequencies that
`bm25.Bm25.doc_terms` makes of the embeddable text, in that order, so a
document's length sums to the same float) and its vector quantised to int8
with one float32 scale (388 bytes a card at 384 dimensions instead of 1,536;
the cosine moves by ~1e-3, below what reorders a ranking in practice; the
ranking over the index is `rank.rank_cards`' order over the dequantised
vectors, tested).

A shard is a list of entries packed into one zlib-compressed blob: a JSON
header (ids, hashes, access, tags, the shard's own term list) followed by
flat numpy arrays. Nothing here knows Firestore (repo/retrieval_index/
stores the blobs).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardchat.schema.documents import Card, updated_stamp


@dataclass(frozen=True)
class Entry:
    id: str
    text_hash: str
    visibility: str
    viewers: tuple[str, ...]
    tags: tuple[str, ...]
    terms: tuple[str, ...]  # BM25 terms, in doc_terms order
    tf: np.ndarray = field(repr=False, compare=False)  # float32, aligned with terms
    vector: np.ndarray | None = field(repr=False, compare=False)  # int8 (dim,), or None: not embedded yet
    scale: float = 0.0
    chars: int = 0  # len(title) + len(body): how many cards to fetch to fill a budget
    title_key: str = ""  # named_titles.title_key: the questions that name this card's title find it
    #: the card's `updated_stamp` when this entry was made (0: a shard written before stamps were
    #: kept): a chat's re-check compares its packed cards' stamps with these instead of reading them
    updated: int = 0

    def same_as(self, other: Entry) -> bool:
        """Equal in every field, arrays included (the dataclass equality skips them)."""
        return (
            self == other
            and np.array_equal(self.tf, other.tf)
            and (self.vector is None) == (other.vector is None)
            and (self.vector is None or other.vector is None or np.array_equal(self.vector, other.vector))
        )

    def card(self, owner: str) -> Card:
        """A text-less Card with this entry's access fields and tags, for
        `CollectionQuery.admits` and `Card.visible_to` (one definition of both)."""
        return Card(
            title="",
            body="",
            owner=owner,
            visibility=self.visibility,  # type: ignore[arg-type]
            viewers=list(self.viewers),
            tags=list(self.tags),
        )


def quantise(vec: np.ndarray) -> tuple[np.ndarray, float]:
    """int8 components and the scale that maps them back (component × scale)."""
    v = np.asarray(vec, dtype=np.float32).reshape(-1)
    peak = float(np.abs(v).max()) if v.size else 0.0
    scale = peak / 127.0 if peak > 0 else 1.0
    return np.clip(np.rint(v / scale), -127, 127).astype(np.int8), scale


def dequantise(q: np.ndarray, scale: float | np.ndarray) -> np.ndarray:
    if isinstance(scale, np.ndarray):
        return q.astype(np.float32) * scale.astype(np.float32)[:, None]
    return q.astype(np.float32) * np.float32(scale)


def make_entry(card_id: str, card: Card, vector: np.ndarray | None) -> Entry:
    """The entry of `card` with `vector` (made from the card's current
    embeddable text, or None)."""
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.retrieval.bm25 import default_bm25
    from cardchat.retrieval.named_titles import title_key

    text, h = embeddable_and_hash(card.title, card.body)
    bm25 = default_bm25()
    # Not kept in BM25's per-process cache: the entry holds these terms, and a rebuild
    # makes every entry of a collection in one call (cached terms nothing reads again).
    doc = bm25.doc_terms((card_id, h), text, remember=False)
    terms = tuple(bm25.vocab.terms[t] for t in doc.term_ids.tolist())
    q, scale = quantise(vector) if vector is not None else (None, 0.0)
    return Entry(
        id=card_id,
        text_hash=h,
        visibility=card.visibility,
        viewers=tuple(card.viewers) if card.visibility == "private" else (),
        tags=tuple(card.tags),
        terms=terms,
        tf=doc.tf.astype(np.float32, copy=True),
        vector=q,
        scale=float(np.float32(scale)),
        chars=len(card.title) + len(card.body),
        title_key=title_key(card.title),
        updated=updated_stamp(card),
    )


_LEN = struct.Struct("<I")


def header_stamps(header: dict[str, Any]) -> list[int]:
    """A shard's `updated` stamps; 0 each in a shard written before they were kept (unknown: read)."""
    return [int(s) for s in header.get("updated") or [0] * len(header["ids"])]


def header_titles(header: dict[str, Any]) -> list[str]:
    """A shard's title keys; "" each in a shard written before they were kept (matched once rewritten)."""
    return list(header.get("titles") or [""] * len(header["ids"]))


def encode_shard(entries: Sequence[Entry], dim: int) -> bytes:
    """The entries packed, compressed (see the module's docstring)."""
    vocab: dict[str, int] = {}
    term_idx = [vocab.setdefault(t, len(vocab)) for e in entries for t in e.terms]
    with_vec = [e for e in entries if e.vector is not None]
    header = {
        "v": 1,
        "dim": dim,
        "ids": [e.id for e in entries],
        "hashes": [e.text_hash for e in entries],
        "vis": [e.visibility for e in entries],
        "viewers": [list(e.viewers) for e in entries],
        "tags": [list(e.tags) for e in entries],
        "nterms": [len(e.terms) for e in entries],
        "has_vec": [e.vector is not None for e in entries],
        "chars": [e.chars for e in entries],
        "titles": [e.title_key for e in entries],
        "updated": [e.updated for e in entries],
        "vocab": list(vocab),
    }
    head = json.dumps(header, separators=(",", ":")).encode()
    arrays = [
        np.asarray(term_idx, dtype="<u4").tobytes(),
        np.concatenate([e.tf for e in entries]).astype("<f4").tobytes() if entries else b"",
        np.asarray([e.scale for e in with_vec], dtype="<f4").tobytes(),
        np.concatenate([e.vector for e in with_vec if e.vector is not None]).astype(np.int8).tobytes()
        if with_vec
        else b"",
    ]
    body = b"".join(_LEN.pack(len(a)) + a for a in [head, *arrays])
    return zlib.compress(body, 6)


@dataclass
class Packed:
    """A shard unpacked into columns (what the ranking snapshot concatenates)."""

    header: dict[str, Any]
    term_idx: np.ndarray  # uint32 into header["vocab"], all entries' terms in a row
    tf: np.ndarray  # float32, aligned with term_idx
    scales: np.ndarray  # float32, one per entry with a vector
    vectors: np.ndarray  # int8 (entries with a vector, dim)

    @property
    def dim(self) -> int:
        return int(self.header["dim"])


def unpack_shard(blob: bytes) -> Packed:
    raw = zlib.decompress(blob)
    parts: list[bytes] = []
    pos = 0
    while pos < len(raw):
        (n,) = _LEN.unpack_from(raw, pos)
        parts.append(raw[pos + 4 : pos + 4 + n])
        pos += 4 + n
    header = json.loads(parts[0])
    dim = int(header["dim"])
    vectors = np.frombuffer(parts[4], dtype=np.int8).reshape(-1, dim) if dim else np.zeros((0, 0), np.int8)
    return Packed(
        header,
        np.frombuffer(parts[1], dtype="<u4"),
        np.frombuffer(parts[2], dtype="<f4"),
        np.frombuffer(parts[3], dtype="<f4"),
        vectors,
    )


def decode_shard(blob: bytes) -> tuple[list[Entry], int]:
    """The entries of an `encode_shard` blob and its dimension."""
    packed = unpack_shard(blob)
    return entries_of(packed), packed.dim


def entries_of(packed: Packed) -> list[Entry]:
    header, term_idx, tf, scales, vectors = packed.header, packed.term_idx, packed.tf, packed.scales, packed.vectors
    vocab, titles, stamps = header["vocab"], header_titles(header), header_stamps(header)
    out: list[Entry] = []
    t = v = 0
    for i, cid in enumerate(header["ids"]):
        k = header["nterms"][i]
        has = header["has_vec"][i]
        out.append(
            Entry(
                id=cid,
                text_hash=header["hashes"][i],
                visibility=header["vis"][i],
                viewers=tuple(header["viewers"][i]),
                tags=tuple(header["tags"][i]),
                terms=tuple(vocab[j] for j in term_idx[t : t + k].tolist()),
                tf=tf[t : t + k],
                vector=vectors[v] if has else None,
                scale=float(scales[v]) if has else 0.0,
                chars=int(header["chars"][i]),
                title_key=titles[i],
                updated=stamps[i],
            )
        )
        t += k
        v += int(has)
    return out
