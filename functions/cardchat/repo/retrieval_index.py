"""The per-owner retrieval index in Firestore, server-only.

Each owner has two: all their cards (key: the owner's uid), and their public
cards alone (key: uid + PUBLIC_SUFFIX), through which anyone who chose that
owner's public cards ranks them without reading a document more for every
private card the owner has. Every change goes to both (apply_changes): a
change that leaves the public partition as it was writes nothing there.

retrieval_index/{key} is the head: a version, the number of slots and, per
slot, the id of the shard document holding its entries
(retrieval_index_shards/{key}.{version}.{slot}.{token}, whose `owner` field holds the key: `data` is an
`index_entries.encode_shard` blob, ≤ MAX_SHARD_BYTES). A card's slot is
crc32(id) mod slots, so a change rewrites only the shards of the cards it
touches. A shard document is never changed once written: an update writes
new shard documents, then swaps the head in one transaction that checks the
version it started from (a concurrent writer's swap makes it start again),
then deletes the shards it replaced. A reader reads the head, then the
shards it names that it does not hold yet (cached by document id, so a warm
instance reads the head alone); a shard deleted under it means a newer head:
it reads again.
"""

from __future__ import annotations

import secrets
import threading
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..retrieval.index_entries import Entry, Packed, encode_shard, entries_of, make_entry, unpack_shard
from ..retrieval.index_snapshot import Snapshot, from_packed
from ..schema.documents import RETRIEVAL_INDEX, RETRIEVAL_INDEX_SHARDS, Card, now
from .transactions import run_in_transaction

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
#: Shards kept decoded per process, across owners (≈ 450 KB each compressed, ~1-2 MB decoded).
CACHED_SHARDS = 400
ATTEMPTS = 8
#: The public partition's key after the owner's uid (Firebase Auth's uids hold no "~").
PUBLIC_SUFFIX = "~public"


def index_key(owner: str, public: bool = False) -> str:
    """The head's document id of `owner`'s index: all their cards, or (`public`) their public ones."""
    return owner + PUBLIC_SUFFIX if public else owner


class IndexConflict(RuntimeError):
    """Another writer swapped the head first: start again from the new one."""


@dataclass(frozen=True)
class Change:
    """A card as it is now (None: deleted) and its vector for its current
    text (None: none yet; an unchanged text keeps the vector it had)."""

    card_id: str
    card: Card | None
    vector: np.ndarray | None = None


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
_snapshots: dict[str, tuple[tuple[str, ...], Snapshot]] = {}
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class ReadStats:
    """Head and shard documents read from Firestore by this process since the last clear."""

    heads: int
    shards: int


def read_stats() -> ReadStats:
    return ReadStats(reads.heads, reads.shards)


def clear_cache() -> None:
    with _cache_lock:
        _shards.clear()
        _snapshots.clear()
    reads.heads = reads.shards = 0


def slot_of(card_id: str, slots: int) -> int:
    return zlib.crc32(card_id.encode()) % max(1, slots)


def read_head(db: firestore.Client, owner: str, public: bool = False) -> dict[str, Any] | None:
    reads.add(heads=1)
    snap = db.collection(RETRIEVAL_INDEX).document(index_key(owner, public)).get()
    return snap.to_dict() if snap.exists else None


def _packed(db: firestore.Client, doc_ids: Sequence[str]) -> dict[str, Packed] | None:
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
    (a cold instance's first call at 100,000 cards reads ~100 of ~450 KB; zlib lets go of the
    GIL, so one stream's decompressing overlaps another's reading)."""
    groups = [list(doc_ids[k::READ_STREAMS]) for k in range(min(READ_STREAMS, len(doc_ids)))]

    def read(group: list[str]) -> list[tuple[str, Packed]]:
        refs = [db.collection(RETRIEVAL_INDEX_SHARDS).document(d) for d in group]
        return [(s.id, unpack_shard(s.get("data"))) for s in db.get_all(refs, field_paths=["data"]) if s.exists]

    if len(groups) == 1:
        return dict(read(groups[0]))
    with ThreadPoolExecutor(len(groups)) as pool:
        return {d: p for part in pool.map(read, groups) for d, p in part}


def load(db: firestore.Client, owner: str, public: bool = False) -> tuple[dict[str, Any], Snapshot] | None:
    """The owner's head and index (`public`: of their public cards) in memory (None: no index
    yet). Warm: one read."""
    key = index_key(owner, public)
    for _ in range(ATTEMPTS):
        head = read_head(db, owner, public)
        if head is None:
            return None
        with _cache_lock:
            cached = _snapshots.get(key)
        # Keyed by the shard ids (random tokens), not the version alone: a head
        # deleted and made again (a wiped database) starts its versions anew.
        if cached is not None and cached[0] == tuple(head["shards"]):
            return head, cached[1]
        shards = _packed(db, head["shards"])
        if shards is None:
            continue  # replaced while we read: a newer head names the new ones
        snapshot = from_packed(owner, [shards[d] for d in head["shards"]])
        with _cache_lock:
            _snapshots[key] = (tuple(head["shards"]), snapshot)
        return head, snapshot
    raise IndexConflict(f"retrieval index {key} kept changing while read")


def apply_changes(db: firestore.Client, owner: str, changes: Sequence[Change], model_id: str) -> int:
    """Bring the owner's index, and its public partition, in line with `changes` (a batch: one
    new version for all of them); returns the version of the index of all cards. No index yet,
    another embedding model's, or a shard that would outgrow MAX_SHARD_BYTES: rebuilt from the
    cards instead. Safe under concurrent callers."""
    version = _apply_partition(db, owner, False, changes, model_id)
    public = [
        ch if ch.card is not None and ch.card.visibility == "public" else Change(ch.card_id, None) for ch in changes
    ]
    _apply_partition(db, owner, True, public, model_id)
    return version


def _apply_partition(db: firestore.Client, owner: str, public: bool, changes: Sequence[Change], model_id: str) -> int:
    if not changes:
        head = read_head(db, owner, public)
        return int(head["version"]) if head else 0
    key = index_key(owner, public)
    for _ in range(ATTEMPTS):
        head = read_head(db, owner, public)
        if head is None or head.get("model") != model_id:
            return rebuild(db, owner, model_id, public)
        try:
            return _apply_once(db, key, head, changes)
        except IndexConflict:
            continue
        except _TooBig:
            return rebuild(db, owner, model_id, public)
    raise IndexConflict(f"retrieval index {key}: {ATTEMPTS} writers in a row got there first")


class _TooBig(Exception):
    pass


def _apply_once(db: firestore.Client, key: str, head: dict[str, Any], changes: Sequence[Change]) -> int:
    slots = int(head["slots"])
    by_slot: dict[int, list[Change]] = {}
    for ch in changes:  # the last change of a card wins
        by_slot.setdefault(slot_of(ch.card_id, slots), []).append(ch)
    old_ids = {s: head["shards"][s] for s in by_slot}
    blobs = _packed(db, list(old_ids.values()))
    if blobs is None:
        raise IndexConflict("a shard was replaced")
    dim = int(head.get("dim") or 0)
    version = int(head["version"]) + 1
    new_docs: dict[int, bytes] = {}
    for s, slot_changes in by_slot.items():
        entries = _entries(blobs[old_ids[s]])
        changed = [_apply(entries, ch) for ch in slot_changes]
        if not any(changed):  # removals of cards it never held (the public partition's private ones)
            continue
        dim = dim or next((int(np.asarray(ch.vector).size) for ch in slot_changes if ch.vector is not None), 0)
        blob = encode_shard(sorted(entries.values(), key=lambda e: e.id), dim)
        if len(blob) > MAX_SHARD_BYTES:
            raise _TooBig()
        new_docs[s] = blob
    if not new_docs:
        return int(head["version"])
    named = _write_shards(db, key, version, new_docs)
    shard_ids = list(head["shards"])
    for s, doc_id in named.items():
        shard_ids[s] = doc_id
    delta = sum(_count_delta(blobs[old_ids[s]], new_docs[s]) for s in new_docs)
    fields = {"version": version, "shards": shard_ids, "dim": dim, "count": int(head.get("count", 0)) + delta}
    _swap_head(db, key, int(head["version"]), {**head, **fields, "updated": now()}, list(named.values()))
    _delete(db, [old_ids[s] for s in new_docs])
    return version


def _entries(packed: Packed) -> dict[str, Entry]:
    return {e.id: e for e in entries_of(packed)}


def _apply(entries: dict[str, Entry], ch: Change) -> bool:
    """Whether `ch` changed `entries`."""
    if ch.card is None:
        return entries.pop(ch.card_id, None) is not None
    entry = make_entry(ch.card_id, ch.card, ch.vector)
    old = entries.get(ch.card_id)
    if ch.vector is None and old is not None and old.text_hash == entry.text_hash and old.vector is not None:
        entry = replace(entry, vector=old.vector, scale=old.scale)
    entries[ch.card_id] = entry
    return True


def _count_delta(old: Packed, new_blob: bytes) -> int:
    return len(unpack_shard(new_blob).header["ids"]) - len(old.header["ids"])


def _write_shards(db: firestore.Client, key: str, version: int, blobs: dict[int, bytes]) -> dict[int, str]:
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


def _swap_head(db: firestore.Client, key: str, expected: int | None, head: dict[str, Any], written: list[str]) -> None:
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
        _delete(db, written)
        raise


def _delete(db: firestore.Client, doc_ids: Sequence[str]) -> None:
    for start in range(0, len(doc_ids), 400):
        batch = db.batch()
        for d in doc_ids[start : start + 400]:
            batch.delete(db.collection(RETRIEVAL_INDEX_SHARDS).document(d))
        batch.commit()


def rebuild(db: firestore.Client, owner: str, model_id: str | None = None, public: bool = False) -> int:
    """The owner's index (`public`: its public partition) from scratch (repo/retrieval_rebuild.py);
    returns the version written. Imported there on call: that module builds on this one's shard
    writes and head swap."""
    from .retrieval_rebuild import rebuild as rebuild_index

    return rebuild_index(db, owner, model_id, public=public)


def all_entries(db: firestore.Client, owner: str, public: bool = False) -> dict[str, Entry]:
    """Every entry of the owner's index (or its public partition) by card id (tests and the CLI compare them)."""
    head = read_head(db, owner, public)
    if head is None:
        return {}
    blobs = _packed(db, head["shards"]) or {}
    return {e.id: e for p in blobs.values() for e in _entries(p).values()}
