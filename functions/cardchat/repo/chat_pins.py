"""The owner's pins and exclusions of a chat (ChatPrivate.pinned_cards / excluded_cards, chat/pins.py),
changed in a transaction: two quick clicks in two tabs both land, neither undoes the other."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..schema.documents import CHAT_PRIVATE, PIN_WINDOW
from . import ratelimit as ratelimit_repo
from .transactions import run_in_transaction

if TYPE_CHECKING:
    from google.cloud import firestore


def change_pins(
    db: firestore.Client,
    chat_id: str,
    uid: str,
    decide: Callable[[dict[str, Any] | None], dict[str, Any]],
    spend: Callable[[list[Any]], list[Any]],
) -> dict[str, Any]:
    """`decide(chat_private as read, or None)` gives the fields to write, then `spend(recent)` takes a
    slot of `uid`'s pin window (rate_limits/{uid}/windows/pins); what either raises refuses the change
    and nothing is written, so a refused call spends no slot. Both are written in the same transaction,
    and the fields returned."""
    ref = db.collection(CHAT_PRIVATE).document(chat_id)
    window = ratelimit_repo.window_ref(db, uid, PIN_WINDOW)

    def body(tx: firestore.Transaction) -> dict[str, Any]:
        snap, slots = ref.get(transaction=tx), window.get(transaction=tx)
        fields = decide(snap.to_dict() if snap.exists else None)
        recent = spend(ratelimit_repo.read_window(slots))
        if fields:
            tx.update(ref, fields)
        tx.set(window, {"recent": recent})
        return fields

    return run_in_transaction(db, body)
