"""The card quotas on the store (embeddings/card_quota.py): the embedding worker asks,
once per batch, which of the batch's cards may be embedded, and records why
the others were not.

Per batch, beside the worker's own reads: one aggregation count of the
owner's vectors (when a card of the batch has none yet), one transaction on
the owner's minute counter (card_write_minutes/{uid}, written once per batch
by the owner's worker, so never a hot document), and one query for the
owner's skip records (the batch's are read only when there are some). A skip
record (embedding_skips/{uid}:{card_id}) goes when its card is embedded or deleted.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from ..embeddings.card_quota import CARD_WRITE_MINUTES, EMBEDDING_SKIPS, CardQuota, Gate, gate, minute_of, skip_id
from ..schema.documents import CARD_EMBEDDINGS
from ..schema.embedding_queue import EmbeddingSkip
from .cards import read_many
from .transactions import run_in_transaction


def count_vectors(db: firestore.Client, owner: str) -> int:
    """The owner's stored vectors: an aggregation over the index on `owner`, no document read."""
    query = db.collection(CARD_EMBEDDINGS).where(filter=FieldFilter("owner", "==", owner))
    counting: Any = query.count(alias="n")  # the SDK's annotations type count() as the class
    return int(counting.get()[0][0].value)


def admit(
    db: firestore.Client, owner: str, ids: Sequence[str], held: set[str], now: datetime, quota: CardQuota
) -> Gate:
    """Which of `ids` (the owner's cards whose text needs a vector; `held`:
    those of the batch that have one, of any model) are embedded now; the
    admitted writes are counted in the owner's minute."""
    if not ids:
        return Gate([], {})
    vectors = count_vectors(db, owner) if any(cid not in held for cid in ids) else 0
    ref = db.collection(CARD_WRITE_MINUTES).document(owner)
    minute = minute_of(now)

    def body(tx: firestore.Transaction) -> Gate:
        written = _written(ref.get(transaction=tx), minute)
        decided = gate(ids, held, vectors, written, quota)
        if decided.admitted:
            tx.set(ref, {"minute": minute, "count": written + len(decided.admitted)})
        return decided

    return run_in_transaction(db, body)


def _written(snap: Any, minute: str) -> int:
    data = (snap.to_dict() or {}) if snap.exists else {}
    return int(data.get("count") or 0) if data.get("minute") == minute else 0


def room(db: firestore.Client, owner: str, now: datetime, quota: CardQuota, cards: bool) -> tuple[int, int]:
    """(new cards the owner may still embed, or 0 unless `cards`; writes left
    in the minute of `now`): what a worker may requeue."""
    written = _written(db.collection(CARD_WRITE_MINUTES).document(owner).get(), minute_of(now))
    return (quota.max_cards - count_vectors(db, owner) if cards else 0), quota.writes_per_minute - written


def record(db: firestore.Client, owner: str, batch_ids: Sequence[str], skipped: dict[str, str], now: datetime) -> None:
    """The batch's skip records as they now are: one per card in `skipped`,
    none for the batch's other cards (embedded, fresh already, or deleted).
    An owner with no record costs one query, not a read per card."""
    if not skipped and not skipped_cards(db, owner, 1):
        return
    ids = [skip_id(owner, cid) for cid in batch_ids]
    found = read_many(db, EMBEDDING_SKIPS, ids, _record, ["card", "reason"])
    existing = {str(d.get("card")): str(d.get("reason")) for _, d in found}
    gone = [cid for cid in existing if cid not in skipped]
    # a card skipped again for the same reason (its trigger came after the worker's sweep) keeps its record
    changed = {cid: reason for cid, reason in skipped.items() if existing.get(cid) != reason}
    if not changed and not gone:
        return
    batch = db.batch()
    for cid, reason in changed.items():
        doc = EmbeddingSkip(owner=owner, card=cid, reason=reason, at=now)
        batch.set(db.collection(EMBEDDING_SKIPS).document(skip_id(owner, cid)), doc.to_dict())
    for cid in gone:
        batch.delete(db.collection(EMBEDDING_SKIPS).document(skip_id(owner, cid)))
    batch.commit()


def _record(_id: str, data: dict[str, Any]) -> dict[str, Any]:
    return data


def skipped_cards(db: firestore.Client, owner: str, limit: int | None) -> dict[str, str]:
    """Up to `limit` (None: all) of the owner's skipped cards: card id -> reason."""
    query = db.collection(EMBEDDING_SKIPS).where(filter=FieldFilter("owner", "==", owner)).select(["card", "reason"])
    snaps = (query if limit is None else query.limit(limit)).stream()
    return {str(snap.get("card")): str(snap.get("reason")) for snap in snaps}


def all_skipped(db: firestore.Client) -> set[str]:
    """Every skipped card's id (an operator's command)."""
    return {str(snap.get("card")) for snap in db.collection(EMBEDDING_SKIPS).select(["card"]).stream()}


def owners_with_skips(db: firestore.Client) -> list[str]:
    """Every owner with a skipped card (an operator's command: reads every skip record's owner)."""
    return sorted({str(snap.get("owner")) for snap in db.collection(EMBEDDING_SKIPS).select(["owner"]).stream()})
