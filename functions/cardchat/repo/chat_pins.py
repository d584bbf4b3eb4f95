"""The owner's pins and exclusions of a chat (ChatPrivate.pinned_cards / excluded_cards, chat/pins.py),
changed in a transaction: two quick clicks in two tabs both land, neither undoes the other."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..schema.documents import CHAT_PRIVATE
from .transactions import run_in_transaction

if TYPE_CHECKING:
    from google.cloud import firestore


def change_pins(
    db: firestore.Client, chat_id: str, decide: Callable[[dict[str, Any] | None], dict[str, Any]]
) -> dict[str, Any]:
    """`decide(chat_private as read, or None)` gives the fields to write (what it raises refuses the change,
    and nothing is written); they are written in the same transaction, and returned."""
    ref = db.collection(CHAT_PRIVATE).document(chat_id)

    def body(tx: firestore.Transaction) -> dict[str, Any]:
        snap = ref.get(transaction=tx)
        fields = decide(snap.to_dict() if snap.exists else None)
        if fields:
            tx.update(ref, fields)
        return fields

    return run_in_transaction(db, body)
