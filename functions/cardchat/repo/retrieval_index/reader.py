"""An owner's retrieval index in memory: the head, then the shards it names that this process
does not hold yet (a warm instance reads the head alone), made into one Snapshot to rank with."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ...retrieval.index_entries import Entry
from ...retrieval.index_snapshot import Snapshot, from_packed
from . import shards
from .shards import ATTEMPTS, IndexConflict, index_key, read_head

if TYPE_CHECKING:
    from google.cloud import firestore

_snapshots: dict[str, tuple[tuple[str, ...], Snapshot]] = {}
_cache_lock = threading.Lock()


def clear_cache() -> None:
    """Forget every index held in memory, and count reads from zero again."""
    with _cache_lock:
        _snapshots.clear()
    shards.clear_cache()


def load(
    db: firestore.Client, owner: str, public: bool = False, head: dict[str, Any] | None = None
) -> tuple[dict[str, Any], Snapshot] | None:
    """The owner's head and index (`public`: of their public cards) in memory (None: no index
    yet, or one whose shards were deleted under its head). Warm: one read, none when the caller
    hands in the `head` it just read."""
    key = index_key(owner, public)
    for _ in range(ATTEMPTS):
        head = head or read_head(db, owner, public)
        if head is None:
            return None
        with _cache_lock:
            cached = _snapshots.get(key)
        # Keyed by the shard ids (random tokens), not the version alone: a head
        # deleted and made again (a wiped database) starts its versions anew.
        if cached is not None and cached[0] == tuple(head["shards"]):
            return head, cached[1]
        found = shards.packed(db, head["shards"])
        if found is None:
            if shards.damaged(db, owner, public, head):
                return None  # no usable index: the caller rebuilds it, or reads the cards
            head = None
            continue  # replaced while we read: a newer head names the new ones
        snapshot = from_packed(owner, [found[d] for d in head["shards"]])
        with _cache_lock:
            _snapshots[key] = (tuple(head["shards"]), snapshot)
        return head, snapshot
    raise IndexConflict(f"retrieval index {key} kept changing while read")


def all_entries(db: firestore.Client, owner: str, public: bool = False) -> dict[str, Entry]:
    """Every entry of the owner's index (or its public partition) by card id (tests and the CLI compare them)."""
    head = read_head(db, owner, public)
    if head is None:
        return {}
    blobs = shards.packed(db, head["shards"]) or {}
    return {e.id: e for p in blobs.values() for e in shards.entries_by_id(p).values()}
