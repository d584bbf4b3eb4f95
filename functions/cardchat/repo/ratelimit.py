"""Firestore adapter for rate_limits/{uid} (server-only; rules deny clients)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.cloud import firestore

from cardchat.repo.transactions import run_in_transaction, update_document
from cardchat.schema.accounts import RateLimit, TokenReservation
from cardchat.schema.documents import RATE_LIMITS, RATE_WINDOWS


@dataclass(frozen=True)
class Ledger:
    """A caller's transaction applies `change` to rate_limits/{uid} beside its own writes;
    `change` raises to refuse, and then nothing is written."""

    uid: str
    change: Callable[[RateLimit], RateLimit]


def _from_dict(d: dict[str, Any] | None) -> RateLimit:
    if not d:
        return RateLimit()
    return RateLimit(
        recent=list(d.get("recent") or []),
        day=d.get("day") or "",
        day_tokens=int(d.get("day_tokens") or 0),
        reservations=[
            TokenReservation(
                message=r["message"], attempt=int(r["attempt"]), tokens=int(r["tokens"]), created=r["created"]
            )
            for r in d.get("reservations") or []
        ],
    )


def _ref(db: firestore.Client, uid: str) -> firestore.DocumentReference:
    return db.collection(RATE_LIMITS).document(uid)


def get(db: firestore.Client, uid: str) -> RateLimit:
    snap = _ref(db, uid).get()
    return _from_dict(snap.to_dict() if snap.exists else None)


def read_in(tx: firestore.Transaction, db: firestore.Client, ledger: Ledger) -> Callable[[], None]:
    """Inside a caller's transaction, before its writes: read the user's
    document and apply the change (which may raise). Returns the write, for
    the caller to make with its own."""
    ref = _ref(db, ledger.uid)
    snap = ref.get(transaction=tx)
    state = ledger.change(_from_dict(snap.to_dict() if snap.exists else None))
    return lambda: tx.set(ref, state.to_dict())


def update(db: firestore.Client, uid: str, change: Callable[[RateLimit], RateLimit]) -> RateLimit:
    """Read-modify-write in one transaction; `change` may raise to refuse,
    and then nothing is written."""
    # one user rarely races themselves, but a double click must not fail
    return update_document(db, _ref(db, uid), _from_dict, change)


def window_ref(db: firestore.Client, uid: str, name: str) -> firestore.DocumentReference:
    """rate_limits/{uid}/windows/{name}: {recent: [times]}, one user's minute of one kind of call."""
    ref: firestore.DocumentReference = _ref(db, uid).collection(RATE_WINDOWS).document(name)
    return ref


def read_window(snap: Any) -> list[Any]:
    """The `recent` times of a window's snapshot (none when it does not exist)."""
    data = snap.to_dict() if snap.exists else None
    return list((data or {}).get("recent") or [])


def spend_window(db: firestore.Client, uid: str, name: str, change: Callable[[list[Any]], list[Any]]) -> None:
    """Read-modify-write of the window's `recent` in one transaction; `change`
    may raise to refuse, and then nothing is written."""
    ref = window_ref(db, uid, name)

    def run(tx: firestore.Transaction) -> None:
        tx.set(ref, {"recent": change(read_window(ref.get(transaction=tx)))})

    run_in_transaction(db, run)
