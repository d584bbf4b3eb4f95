"""Firestore side of a sync run (syncCards `run`): what its requests listed (card_sync_runs,
schema/card_syncs.SyncRun), read back by its last request's delete_missing, then removed."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from google.api_core import exceptions as gexc
from google.cloud.firestore import FieldFilter

from cardchat import ids
from cardchat.schema.card_syncs import CARD_SYNC_RUNS, SYNC_RUN_TTL, SyncRun

if TYPE_CHECKING:
    from google.cloud import firestore


def _head(db: firestore.Client, key: str) -> SyncRun | None:
    snap = db.collection(CARD_SYNC_RUNS).document(key).get()
    return SyncRun.from_dict(snap.to_dict() or {}) if snap.exists else None


def join(db: firestore.Client, owner: str, key: str, card_ids: list[str], now: datetime) -> bool:
    """Adds `card_ids` to the run `key`, started now if unknown; False (nothing written) when it expired."""
    head = _head(db, key)
    if head is None:
        head = SyncRun(owner, key, now + SYNC_RUN_TTL)
        try:
            db.collection(CARD_SYNC_RUNS).document(key).create(head.to_dict())
        except gexc.AlreadyExists:  # its first two requests raced: the other one started it
            head = _head(db, key) or head
    if head.expires <= now:
        return False
    if card_ids:
        part = SyncRun(owner, key, head.expires, sorted(card_ids))
        db.collection(CARD_SYNC_RUNS).document(ids.sync_run_part_id(key, card_ids)).set(part.to_dict())
    return True


def listed(db: firestore.Client, owner: str, key: str, now: datetime) -> set[str] | None:
    """Every card the run `key` listed; None when it is unknown or expired."""
    head = _head(db, key)
    if head is None or head.owner != owner or head.expires <= now:
        return None
    query = db.collection(CARD_SYNC_RUNS).where(filter=FieldFilter("owner", "==", owner))
    query = query.where(filter=FieldFilter("run", "==", key)).select(["cards"])
    return {str(c) for snap in query.stream() for c in (snap.get("cards") or [])}


def end(db: firestore.Client, owner: str, key: str) -> None:
    """The run's records, once its deletions are done (the TTL policy takes those of runs never ended)."""
    query = db.collection(CARD_SYNC_RUNS).where(filter=FieldFilter("owner", "==", owner))
    refs = [s.reference for s in query.where(filter=FieldFilter("run", "==", key)).select([]).stream()]
    for i in range(0, len(refs), 400):
        batch = db.batch()
        for ref in refs[i : i + 400]:
            batch.delete(ref)
        batch.commit()
