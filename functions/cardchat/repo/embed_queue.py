"""The documents of batched embedding: the queue, the worker notice, the progress.

A trigger records its card in `embedding_queue` (one small write, no model),
then reads the owner's `embedding_workers` notice; a worker takes batches of
queue entries in a transaction (a lease per entry, so two workers never embed
the same card, and a crashed worker's entries become takeable when the lease
runs out) and removes each entry only if it was not written again meanwhile.
repo/embed_batches.py drives these steps.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from google.api_core import exceptions as gexc
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from ..schema.documents import CARDS, Card
from ..schema.embedding_queue import (
    EMBEDDING_HANDOVERS,
    EMBEDDING_PROGRESS,
    EMBEDDING_QUEUE,
    EMBEDDING_WORKERS,
    EmbeddingProgress,
    Handover,
    QueuedCard,
    WorkerNotice,
)
from .transactions import TX_PATIENCE_S, run_in_transaction

if TYPE_CHECKING:
    from collections.abc import Iterable

#: Entries looked at per take (one call of `take`): more than a batch, so entries another live
#: worker holds do not hide takeable ones behind them.
SCAN_FACTOR = 2


def enqueue(db: firestore.Client, card_id: str, owner: str, now: datetime) -> None:
    """The card waits for its vector. A write over a taken entry keeps the
    lease (the taking worker still owns the card) but changes the version, so the
    taking worker's finish leaves it queued and it is embedded again."""
    entry = QueuedCard(owner=owner, version=uuid.uuid4().hex, enqueued=now).to_dict()
    del entry["lease_until"], entry["worker"]
    ref = db.collection(EMBEDDING_QUEUE).document(card_id)
    # A plain write waits for `take`'s lock on the entry and may time out
    # (ABORTED) in a burst: the write is idempotent, so it is asked again.
    give_up = time.monotonic() + TX_PATIENCE_S
    pause = 0.05
    while True:
        try:
            ref.set(entry, merge=True)
            return
        except gexc.Aborted:
            if time.monotonic() > give_up:
                raise
        time.sleep(random.uniform(pause / 2, pause))
        pause = min(pause * 2, 1.0)


def enqueue_many(db: firestore.Client, owners: dict[str, str], now: datetime) -> None:
    """enqueue() for many cards (card_id -> owner) in one batch write."""
    batch = db.batch()
    for card_id, owner in owners.items():
        entry = QueuedCard(owner=owner, version=uuid.uuid4().hex, enqueued=now).to_dict()
        del entry["lease_until"], entry["worker"]
        batch.set(db.collection(EMBEDDING_QUEUE).document(card_id), entry, merge=True)
    batch.commit()


def written_since(
    db: firestore.Client, owner: str, since: datetime, after: Any | None, limit: int
) -> tuple[dict[str, Card], Any | None]:
    """The owner's cards written at or after `since`, oldest first, a page
    of `limit` after the cursor `after`; returns them and the next cursor."""
    query = (
        db.collection(CARDS)
        .where(filter=FieldFilter("owner", "==", owner))
        .where(filter=FieldFilter("updated", ">=", since))
        .order_by("updated")
        .order_by("__name__")
        .limit(limit)
    )
    if after is not None:
        query = query.start_after(after)
    snaps = list(query.stream())
    cards = {snap.id: Card.from_dict(snap.to_dict() or {}) for snap in snaps}
    return cards, (snaps[-1] if snaps else after)


def worker_alive(db: firestore.Client, owner: str, now: datetime) -> bool:
    snap = db.collection(EMBEDDING_WORKERS).document(owner).get()
    return notice_live(snap.to_dict() if snap.exists else None, now)


def notice_live(data: dict[str, Any] | None, now: datetime) -> bool:
    """Whether a worker notice (its stored fields, None if there is none) still holds at `now`."""
    return bool(data) and data is not None and data.get("alive_until") is not None and data["alive_until"] > now


def announce(db: firestore.Client, owner: str, worker: str, until: datetime) -> None:
    db.collection(EMBEDDING_WORKERS).document(owner).set(WorkerNotice(worker=worker, alive_until=until).to_dict())


def retire(db: firestore.Client, owner: str) -> None:
    db.collection(EMBEDDING_WORKERS).document(owner).delete()


def hand_over(db: firestore.Client, owner: str, worker: str, at: datetime) -> None:
    """The notice goes, then a handover is written: its trigger (resumeEmbedding) starts a fresh worker."""
    retire(db, owner)
    db.collection(EMBEDDING_HANDOVERS).document(owner).set(Handover(worker=worker, at=at).to_dict())


def _takeable(data: dict[str, Any], now: datetime) -> bool:
    lease = data.get("lease_until")
    return lease is None or lease <= now


def take(db: firestore.Client, owner: str, worker: str, now: datetime, lease: timedelta, limit: int) -> dict[str, str]:
    """Up to `limit` of the owner's queued cards no live lease holds, leased
    to `worker`: card_id -> the version taken."""
    query = db.collection(EMBEDDING_QUEUE).where(filter=FieldFilter("owner", "==", owner)).limit(limit * SCAN_FACTOR)

    def body(tx: firestore.Transaction) -> dict[str, str]:
        taken: dict[str, str] = {}
        for snap in list(tx.get(query)):  # every read before the first write
            data = snap.to_dict() or {}
            if len(taken) < limit and _takeable(data, now):
                tx.update(snap.reference, {"lease_until": now + lease, "worker": worker})
                taken[snap.id] = str(data.get("version", ""))
        return taken

    return run_in_transaction(db, body)


def finish(db: firestore.Client, taken: dict[str, str]) -> list[str]:
    """Removes the entries still at their taken version; the others (the
    card was written during the batch) lose the lease and wait for the next
    batch. Returns the ids left queued."""
    refs = [db.collection(EMBEDDING_QUEUE).document(card_id) for card_id in taken]

    def body(tx: firestore.Transaction) -> list[str]:
        again: list[str] = []
        for snap in list(tx.get_all(refs)):
            if not snap.exists:
                continue
            if (snap.to_dict() or {}).get("version") == taken[snap.id]:
                tx.delete(snap.reference)
            else:
                tx.update(snap.reference, {"lease_until": None, "worker": ""})
                again.append(snap.id)
        return again

    return run_in_transaction(db, body) if refs else []


def pending_count(db: firestore.Client, owner: str) -> int:
    query = db.collection(EMBEDDING_QUEUE).where(filter=FieldFilter("owner", "==", owner))
    counting: Any = query.count(alias="n")  # the SDK's annotations type count() as the class
    return int(counting.get()[0][0].value)


def record_progress(db: firestore.Client, owner: str, embedded: int, now: datetime) -> int:
    """The owner's progress after a batch that made `embedded` vectors; returns `pending`."""
    pending = pending_count(db, owner)
    doc = EmbeddingProgress(pending=pending, updated=now).to_dict()
    doc["embedded"] = firestore.Increment(embedded)
    db.collection(EMBEDDING_PROGRESS).document(owner).set(doc, merge=True)
    return pending


def read_progress(db: firestore.Client, owner: str) -> EmbeddingProgress | None:
    snap = db.collection(EMBEDDING_PROGRESS).document(owner).get()
    data = snap.to_dict() if snap.exists else None
    return EmbeddingProgress(**data) if data else None


def queued(db: firestore.Client, ids: Sequence[str]) -> Iterable[str]:
    """Which of `ids` are queued (tests and the bench look)."""
    refs = [db.collection(EMBEDDING_QUEUE).document(card_id) for card_id in ids]
    return [snap.id for snap in db.get_all(refs) if snap.exists]
