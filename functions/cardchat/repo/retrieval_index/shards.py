"""Heads and shard documents of the retrieval index (the layout: this package's docstring).

The primitives the reader, the rebuild and the changes build on: the keys and slots, reading a
head and the shards it names (through a process-wide cache of decoded shards, whose reads are
counted), writing new shard documents, swapping a head in a transaction that checks the version
it started from, and deleting shard documents.
"""

from __future__ import annotations

import secrets
import threading
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...embeddings.scripts import TERMS_VERSION
from ...retrieval.index_entries import Entry, Packed, entries_of, unpack_shard
from ...schema.documents import RETRIEVAL_INDEX, RETRIEVAL_INDEX_SHARDS
from ..transactions import run_in_transaction

if TYPE_CHECKING:
    from google.cloud import firestore

#: A shard is written at most this big (Firestore's document limit is 1 MiB);
#: a rebuild aims at TARGET so that cards added later fit without a reshard.
MAX_SHARD_BYTES = 900_000
TARGET_SHARD_BYTES = 450_000
#: Shard documents per write batch (a commit carries at most 10 MiB).
WRITE_BATCH = 8
#: Batch reads of shards in flight at once on a cold load.
READ_STREAMS = 4
#: Shards kept decoded per process, across owners (each a shard of about TARGET_SHARD_BYTES compressed).
CACHED_SHARDS = 400
#: Head swaps tried before a writer gives up (each lost to a concurrent writer's swap).
ATTEMPTS = 8
#: The public partition's key after the owner's uid (Firebase Auth's uids hold no "~").
PUBLIC_SUFFIX = "~public"


def index_key(owner: str, public: bool = False) -> str:
    """The head's document id of `owner`'s index: all their cards, or (`public`) their public ones."""
    return owner + PUBLIC_SUFFIX if public else owner


class IndexConflict(RuntimeError):
    """Another writer swapped the head first: start again from the new one."""


class _Reads:
    def __init__(self) -> None:
        self.heads = 0
        self.shards = 0
        self.lock = threading.Lock()

    def add(self, heads: int = 0, shards: int = 0) -> None:
        with self.lock:
            self.heads += heads
            self.shards += shards


reads = _Reads()
_shards: OrderedDict[str, Packed] = OrderedDict()
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class ReadStats:
    """Head and shard documents read from Firestore by this process since the last clear."""

    heads: int
    shards: int


def read_stats() -> ReadStats:
    return ReadStats(reads.heads, reads.shards)


def clear_cache() -> None:
    """Forget the decoded shards, and count reads from zero again."""
    with _cache_lock:
        _shards.clear()
    reads.heads = reads.shards = 0


def is_current(head: dict[str, Any] | None, model_id: str) -> bool:
    """The index exists and was built with this embedding model's vectors and today's BM25 terms;
    otherwise it is rebuilt, since its entries would not match a query's."""
    return head is not None and head.get("model") == model_id and head.get("terms") == TERMS_VERSION


def slot_of(card_id: str, slots: int) -> int:
    return zlib.crc32(card_id.encode()) % max(1, slots)


def read_head(db: firestore.Client, owner: str, public: bool = False) -> dict[str, Any] | None:
    reads.add(heads=1)
    snap = db.collection(RETRIEVAL_INDEX).document(index_key(owner, public)).get()
    return snap.to_dict() if snap.exists else None


def damaged(db: firestore.Client, owner: str, public: bool, head: dict[str, Any]) -> bool:
    """Whether a shard `head` names is gone for good: the stored head, read again, still names the
    same shards. A writer deletes the shards it replaced only after its head swap, so a shard missing
    under an unchanged head was deleted from outside (a wiped or half-restored database); reading
    again would never find it, and only a rebuild mends the index."""
    stored = read_head(db, owner, public)
    return stored is not None and list(stored["shards"]) == list(head["shards"])


def packed(db: firestore.Client, doc_ids: Sequence[str]) -> dict[str, Packed] | None:
    """The shards named, from the cache or read; None if one is gone (a newer head replaced it)."""
    with _cache_lock:
        found = {d: _shards[d] for d in doc_ids if d in _shards}
    missing = [d for d in doc_ids if d not in found]
    if missing:
        reads.add(shards=len(missing))
        found.update(_read_shards(db, missing))
        with _cache_lock:
            for d in missing:
                if d in found:
                    _shards[d] = found[d]
            while len(_shards) > CACHED_SHARDS:
                _shards.popitem(last=False)
    return found if all(d in found for d in doc_ids) else None


def _read_shards(db: firestore.Client, doc_ids: Sequence[str]) -> dict[str, Packed]:
    """The shards that exist among `doc_ids`, unpacked: READ_STREAMS batch reads side by side
    (a cold instance's first call on a large collection reads many shards; zlib lets go of the
    GIL, so one stream's decompressing overlaps another's reading)."""
    groups = [list(doc_ids[k::READ_STREAMS]) for k in range(min(READ_STREAMS, len(doc_ids)))]

    def read(group: list[str]) -> list[tuple[str, Packed]]:
        refs = [db.collection(RETRIEVAL_INDEX_SHARDS).document(d) for d in group]
        return [(s.id, unpack_shard(s.get("data"))) for s in db.get_all(refs, field_paths=["data"]) if s.exists]

    if len(groups) == 1:
        return dict(read(groups[0]))
    with ThreadPoolExecutor(len(groups)) as pool:
        return {d: p for part in pool.map(read, groups) for d, p in part}


def entries_by_id(shard: Packed) -> dict[str, Entry]:
    """A shard's entries by card id."""
    return {e.id: e for e in entries_of(shard)}


def write_shards(db: firestore.Client, key: str, version: int, blobs: dict[int, bytes]) -> dict[int, str]:
    """New shard documents of index `key` (never overwriting one: a random token in each id)."""
    token = secrets.token_hex(4)
    named = {s: f"{key}.{version}.{s}.{token}" for s in blobs}
    items = list(blobs.items())
    for start in range(0, len(items), WRITE_BATCH):
        batch = db.batch()
        for s, blob in items[start : start + WRITE_BATCH]:
            ref = db.collection(RETRIEVAL_INDEX_SHARDS).document(named[s])
            batch.set(ref, {"owner": key, "version": version, "slot": s, "data": blob})
        batch.commit()
    return named


def swap_head(db: firestore.Client, key: str, expected: int | None, head: dict[str, Any], written: list[str]) -> None:
    """Make `head` index `key`'s head if the stored one is still at version `expected` (None: no
    head, or an older one); else delete the shards `written` for it and raise IndexConflict."""
    ref = db.collection(RETRIEVAL_INDEX).document(key)

    def body(tx: firestore.Transaction) -> None:
        snap = ref.get(transaction=tx)
        current = (snap.to_dict() or {}).get("version") if snap.exists else None
        if expected is not None and current != expected:
            raise IndexConflict("the head moved")
        if expected is None and current is not None and int(current) >= int(head["version"]):
            raise IndexConflict("a newer head")
        tx.set(ref, head)

    try:
        run_in_transaction(db, body)
    except IndexConflict:
        delete_shards(db, written)
        raise


def delete_shards(db: firestore.Client, doc_ids: Sequence[str]) -> None:
    for start in range(0, len(doc_ids), 400):
        batch = db.batch()
        for d in doc_ids[start : start + 400]:
            batch.delete(db.collection(RETRIEVAL_INDEX_SHARDS).document(d))
        batch.commit()
