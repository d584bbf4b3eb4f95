"""Cards changed or deleted, applied to an owner's retrieval index and its public partition:
in place, slot by slot (a new version of the shards the changes touch, then the head swapped);
rebuilt from the cards when there is no index yet, it is another embedding model's, or a shard
would outgrow MAX_SHARD_BYTES."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ...retrieval.index_entries import Entry, Packed, encode_shard, make_entry, unpack_shard
from ...schema.documents import Card, now
from . import shards
from .rebuild import rebuild
from .shards import ATTEMPTS, MAX_SHARD_BYTES, IndexConflict, index_key, is_current, read_head, slot_of

if TYPE_CHECKING:
    from google.cloud import firestore


@dataclass(frozen=True)
class Change:
    """A card as it is now (None: deleted) and its vector for its current
    text (None: none yet; an unchanged text keeps the vector it had)."""

    card_id: str
    card: Card | None
    vector: np.ndarray | None = None


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
    for attempt in range(ATTEMPTS):
        if attempt:  # apart, so that writers that met do not meet again at once
            time.sleep(random.uniform(0, min(1.0, 0.05 * 2**attempt)))
        head = read_head(db, owner, public)
        if head is None or not is_current(head, model_id):
            return rebuild(db, owner, model_id, public=public)
        try:
            return _apply_once(db, key, head, changes)
        except _ShardGone:
            if shards.damaged(db, owner, public, head):
                return rebuild(db, owner, model_id, public=public)
        except IndexConflict:
            continue
        except _TooBig:
            return rebuild(db, owner, model_id, public=public)
    raise IndexConflict(f"retrieval index {key}: {ATTEMPTS} writers in a row got there first")


class _TooBig(Exception):
    pass


class _ShardGone(IndexConflict):
    """A shard the head named was not there: replaced by a newer head, or deleted under it (shards.damaged)."""


def _apply_once(db: firestore.Client, key: str, head: dict[str, Any], changes: Sequence[Change]) -> int:
    slots = int(head["slots"])
    by_slot: dict[int, list[Change]] = {}
    for ch in changes:  # the last change of a card wins
        by_slot.setdefault(slot_of(ch.card_id, slots), []).append(ch)
    old_ids = {s: head["shards"][s] for s in by_slot}
    blobs = shards.packed(db, list(old_ids.values()))
    if blobs is None:
        raise _ShardGone("a shard was replaced")
    dim = int(head.get("dim") or 0)
    version = int(head["version"]) + 1
    new_docs: dict[int, bytes] = {}
    for s, slot_changes in by_slot.items():
        entries = shards.entries_by_id(blobs[old_ids[s]])
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
    named = shards.write_shards(db, key, version, new_docs)
    shard_ids = list(head["shards"])
    for s, doc_id in named.items():
        shard_ids[s] = doc_id
    delta = sum(_count_delta(blobs[old_ids[s]], new_docs[s]) for s in new_docs)
    fields = {"version": version, "shards": shard_ids, "dim": dim, "count": int(head.get("count", 0)) + delta}
    shards.swap_head(db, key, int(head["version"]), {**head, **fields, "updated": now()}, list(named.values()))
    shards.delete_shards(db, [old_ids[s] for s in new_docs])
    return version


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
