"""card_embeddings/{card_id}: stored vectors, their freshness, and a cache.

A stored vector is fresh for a card when it was made by the model in use from
the card's current embeddable text (same text_hash). Stale and foreign-model
vectors are never returned: a caller embeds those cards anew.

The per-process cache is keyed by (card_id, text_hash, model_id), so an entry
can never be stale: an edited card has a new hash and simply misses. A warm
instance ranks a collection it has seen without reading any vector.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..embeddings import pack, unpack
from ..embeddings.base import Embedder
from ..embeddings.text import embeddable_and_hash
from ..schema.documents import CARD_EMBEDDINGS, Card, CardEmbedding
from .cards import batched, read_many

if TYPE_CHECKING:
    from google.cloud import firestore

#: Cache size: 64 MiB holds ~43k MiniLM vectors (1.5 KiB each).
CACHE_BYTES = 64 * 1024 * 1024
#: Cards embedded and written per round: under Firestore's 500 writes per batch.
WRITE_BATCH = 256
_FIELDS = ["model", "dim", "vector", "text_hash"]


class _VectorCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._data: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.reads = 0  # documents asked of Firestore

    def get_many(self, keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], np.ndarray]:
        found = {}
        with self._lock:
            for key in keys:
                vec = self._data.get(key)
                if vec is not None:
                    self._data.move_to_end(key)
                    found[key] = vec
            self.hits += len(found)
            self.misses += len(keys) - len(found)
        return found

    def put(self, key: tuple[str, str, str], vec: np.ndarray) -> None:
        vec = np.asarray(vec, dtype=np.float32)
        if isinstance(vec.base, np.ndarray):
            vec = vec.copy()  # a row of a batch matrix would keep the whole matrix alive
        vec.flags.writeable = False  # shared between callers
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old.nbytes
            self._data[key] = vec
            self._bytes += vec.nbytes
            while self._bytes > self.max_bytes and self._data:
                _, evicted = self._data.popitem(last=False)
                self._bytes -= evicted.nbytes

    def count_reads(self, n: int) -> None:
        with self._lock:
            self.reads += n

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._bytes = 0
            self.hits = self.misses = self.reads = 0

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {
                "entries": len(self._data),
                "bytes": self._bytes,
                "hits": self.hits,
                "misses": self.misses,
                "reads": self.reads,
            }


_cache = _VectorCache(CACHE_BYTES)


def cache_stats() -> dict[str, int]:
    """entries, bytes, hits, misses, reads (documents read from Firestore) since the last clear."""
    return _cache.stats()


def clear_cache() -> None:
    _cache.clear()


def load_embeddings(
    db: firestore.Client, wanted: Mapping[str, str], model_id: str, remember: bool = True
) -> dict[str, np.ndarray]:
    """Fresh vectors of `wanted` (card_id -> current text_hash) made by `model_id`.
    Cards without one are absent from the result. `remember=False` leaves the
    ones read out of the cache (a rebuild reads every vector once, to quantise it:
    keeping them would hold up to CACHE_BYTES for nothing)."""
    keys = [(card_id, h, model_id) for card_id, h in wanted.items()]
    found = _cache.get_many(keys)
    to_read = [key[0] for key in keys if key not in found]
    if to_read:
        _cache.count_reads(len(to_read))

        def fresh(card_id: str, data: dict[str, Any]) -> np.ndarray | None:
            if data.get("model") != model_id or data.get("text_hash") != wanted[card_id]:
                return None
            try:
                return unpack(data["vector"], int(data["dim"]))
            except (KeyError, TypeError, ValueError):
                return None  # a malformed document counts as missing: it gets re-embedded

        for card_id, vec in read_many(db, CARD_EMBEDDINGS, to_read, fresh, field_paths=_FIELDS):
            key = (card_id, wanted[card_id], model_id)
            if remember:
                _cache.put(key, vec)
            found[key] = vec
    return {key[0]: found[key] for key in keys if key in found}


def embed_and_store(db: firestore.Client, cards: Mapping[str, Card], embedder: Embedder) -> dict[str, np.ndarray]:
    """Embed `cards` and store their vectors, in batches; returns card_id -> vector."""
    prepared = {card_id: embeddable_and_hash(c.title, c.body) for card_id, c in cards.items()}
    out: dict[str, np.ndarray] = {}
    for group in batched(list(prepared), WRITE_BATCH):
        # Cards with the same text (templates, duplicates) are embedded once.
        unique: dict[str, str] = {}
        for card_id in group:
            text, h = prepared[card_id]
            unique.setdefault(h, text)
        hashes = list(unique)
        matrix = embedder.embed([unique[h] for h in hashes])
        by_hash = dict(zip(hashes, matrix))
        made = {card_id: by_hash[prepared[card_id][1]] for card_id in group}
        _write(db, cards, made, embedder.model_id, embedder.dim)
        out.update(made)
    return out


def store_vectors(
    db: firestore.Client, cards: Mapping[str, Card], vectors: Mapping[str, np.ndarray], model_id: str, dim: int
) -> None:
    """Vectors made elsewhere by `model_id` (the demo deck's cache), stored as embed_and_store stores its own."""
    ids = list(vectors)
    for group in batched(ids, WRITE_BATCH):
        _write(db, cards, {card_id: vectors[card_id] for card_id in group}, model_id, dim)


def _write(
    db: firestore.Client, cards: Mapping[str, Card], vectors: Mapping[str, np.ndarray], model_id: str, dim: int
) -> None:
    """One batch: each card's vector, with the hash of the text it was made from, also into the cache."""
    batch = db.batch()
    for card_id, vec in vectors.items():
        card = cards[card_id]
        h = embeddable_and_hash(card.title, card.body)[1]
        doc = CardEmbedding(model=model_id, dim=dim, vector=pack(vec), text_hash=h, owner=card.owner)
        batch.set(db.collection(CARD_EMBEDDINGS).document(card_id), doc.to_dict())
        _cache.put((card_id, h, model_id), vec)
    batch.commit()
