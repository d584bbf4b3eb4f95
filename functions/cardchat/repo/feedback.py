"""Firestore adapter for answer_feedback: the owner's ratings of answers,
keyed by the answer's message id (one rating per answer, replaced on a
change, deleted when cleared)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from google.cloud import firestore

from cardchat.schema.accounts import ANSWER_FEEDBACK, AnswerFeedback


def _ref(db: firestore.Client, message_id: str) -> firestore.DocumentReference:
    return db.collection(ANSWER_FEEDBACK).document(message_id)


def put_feedback(db: firestore.Client, message_id: str, feedback: AnswerFeedback) -> None:
    """Sets the rating, keeping when it was first given."""
    ref = _ref(db, message_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> None:
        snap = ref.get(transaction=tx)
        if snap.exists and snap.get("created"):
            feedback.created = snap.get("created")
        tx.set(ref, feedback.to_dict())

    run(db.transaction())


def clear_feedback(db: firestore.Client, message_id: str) -> None:
    _ref(db, message_id).delete()


def rated_since(db: firestore.Client, since: datetime) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every rating given or changed since `since`, oldest first."""
    query = db.collection(ANSWER_FEEDBACK).where(filter=firestore.FieldFilter("updated", ">=", since))
    docs = [(d.id, d.to_dict() or {}) for d in query.stream()]
    docs.sort(key=lambda item: item[1].get("updated") or since)
    yield from docs
