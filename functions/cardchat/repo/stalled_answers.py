"""Firestore adapter for the answer sweeper (generation/sweeper.py): finding
answers whose lease ran out, and settling one of them in a transaction.

Finding them is one query on the composite index (status, lease_expires)
declared in firestore.indexes.json, so a sweep that finds nothing costs one
read whatever the number of messages. A finished message holds no lease
(`lease_expires` is null), and a range filter never matches a null: only
live answers can come back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from google.cloud import firestore

from cardchat.parsing.utf8 import well_formed_fields
from cardchat.repo.transactions import run_in_transaction
from cardchat.schema.documents import CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, LIVE_STATUSES
from cardchat.schema.messages import ChatMessage

#: Chunks read and deleted in the settling transaction, below the 500-writes
#: limit; a run that left more has the rest removed by the next run that takes it (engine).
_CHUNKS_IN_TX = 450


def expired_query(db: firestore.Client, now: datetime, limit: int) -> firestore.Query:
    """Live answers whose lease ran out by `now`, the longest expired first."""
    return (
        db.collection(CHAT_MESSAGES)
        .where(filter=firestore.FieldFilter("status", "in", sorted(LIVE_STATUSES)))
        .where(filter=firestore.FieldFilter("lease_expires", "<=", now))
        .order_by("lease_expires")
        .limit(limit)
    )


def expired(db: firestore.Client, now: datetime, limit: int) -> list[tuple[str, ChatMessage]]:
    return [(d.id, ChatMessage.from_dict(d.to_dict() or {})) for d in expired_query(db, now, limit).stream()]


def leaseless(db: firestore.Client, statuses: frozenset[str]) -> list[str]:
    """Answers in `statuses` that hold no lease: written before answers had leases. The field is
    missing, which no index holds, so this reads every answer in those statuses (the answers
    in flight): a one-off on deploy, never part of the scheduled sweep."""
    query = db.collection(CHAT_MESSAGES).where(filter=firestore.FieldFilter("status", "in", sorted(statuses)))
    return [d.id for d in query.select(["lease_expires"]).stream() if (d.to_dict() or {}).get("lease_expires") is None]


def settle(
    db: firestore.Client,
    message_id: str,
    decide: Callable[[ChatMessage, str], dict[str, Any] | None],
) -> bool:
    """One transaction: read the message and its chunks' text (in order), let
    `decide(message, partial_text)` return the message's new fields (None: leave
    it, someone else moved it on meanwhile), then write them and delete the
    chunks. Returns whether it wrote."""
    ref = db.collection(CHAT_MESSAGES).document(message_id)
    chunks = db.collection(CHAT_MESSAGES_STREAMING).where(filter=firestore.FieldFilter("message", "==", message_id))

    def run(tx: firestore.Transaction) -> dict[str, Any] | None:
        snap = ref.get(transaction=tx)
        if not snap.exists:
            return None
        # a plain read: a query in a transaction locks every answer's chunks on the emulator
        found = sorted(chunks.limit(_CHUNKS_IN_TX).stream(), key=lambda d: (d.to_dict() or {}).get("index", 0))
        partial = "".join((d.to_dict() or {}).get("content") or "" for d in found)
        update = decide(ChatMessage.from_dict(snap.to_dict() or {}), partial)
        if update is None:
            return None
        for d in found:
            tx.delete(d.reference)
        tx.update(ref, well_formed_fields(update))
        return update

    return run_in_transaction(db, run) is not None
