"""Rebuilding an owner's retrieval index from their cards and stored vectors (issue 21)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from google.cloud.firestore import FieldFilter

from ..retrieval.index_entries import Entry, encode_shard, make_entry
from ..schema import CARDS, RETRIEVAL_INDEX_SHARDS, Card, now
from .retrieval_index import (
    ATTEMPTS,
    MAX_SHARD_BYTES,
    TARGET_SHARD_BYTES,
    IndexConflict,
    _delete,
    _swap_head,
    _write_shards,
    read_head,
    slot_of,
)

if TYPE_CHECKING:
    from google.cloud import firestore


def rebuild(db: firestore.Client, owner: str, model_id: str | None = None) -> int:
    """The owner's index from scratch, from their cards and stored vectors
    (`model_id`'s; default: the embedder in use); returns the version written."""
    from ..embeddings import get_embedder
    from .embeddings import load_embeddings

    model = model_id or get_embedder().model_id
    cards = {
        s.id: Card.from_dict(s.to_dict() or {})
        for s in db.collection(CARDS).where(filter=FieldFilter("owner", "==", owner)).stream()
    }
    from ..embeddings.text import embeddable_and_hash

    vectors = load_embeddings(db, {c: embeddable_and_hash(k.title, k.body)[1] for c, k in cards.items()}, model)
    entries = [make_entry(c, k, vectors.get(c)) for c, k in cards.items()]
    dim = next((int(v.size) for v in vectors.values()), 0)
    for _ in range(ATTEMPTS):
        head = read_head(db, owner)
        version = int(head["version"]) + 1 if head else 1
        blobs = _shard_blobs(entries, dim)
        named = _write_shards(db, owner, version, dict(enumerate(blobs)))
        shard_ids = [named[s] for s in range(len(blobs))]
        new_head = {
            "owner": owner,
            "version": version,
            "slots": len(blobs),
            "shards": shard_ids,
            "model": model,
            "dim": dim,
            "count": len(entries),
            "updated": now(),
        }
        try:
            _swap_head(db, owner, int(head["version"]) if head else None, new_head, list(named.values()))
        except IndexConflict:
            continue
        _delete_orphans(db, owner, version, set(shard_ids))
        return version
    raise IndexConflict(f"retrieval index of {owner}: could not swap the rebuilt head")


def _shard_blobs(entries: Sequence[Entry], dim: int) -> list[bytes]:
    """Entries split by slot into shards of about TARGET_SHARD_BYTES, each under MAX_SHARD_BYTES."""
    probe = encode_shard(list(entries[:200]), dim)
    per_entry = len(probe) / max(1, min(200, len(entries)))
    slots = max(1, math.ceil(per_entry * len(entries) / TARGET_SHARD_BYTES))
    while True:
        groups: list[list[Entry]] = [[] for _ in range(slots)]
        for e in entries:
            groups[slot_of(e.id, slots)].append(e)
        blobs = [encode_shard(sorted(g, key=lambda e: e.id), dim) for g in groups]
        if all(len(b) <= MAX_SHARD_BYTES for b in blobs):
            return blobs
        slots *= 2


def _delete_orphans(db: firestore.Client, owner: str, version: int, keep: set[str]) -> None:
    """Shards of this owner's earlier versions that no head names (replaced,
    or left by a writer that stopped midway). A later writer's are kept."""
    stale = [
        s.id
        for s in db.collection(RETRIEVAL_INDEX_SHARDS)
        .where(filter=FieldFilter("owner", "==", owner))
        .select(["version"])
        .stream()
        if s.id not in keep and int((s.to_dict() or {}).get("version", 0)) <= version
    ]
    _delete(db, stale)
