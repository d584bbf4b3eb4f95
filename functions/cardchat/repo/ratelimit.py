"""Firestore adapter for rate_limits/{uid} (server-only; rules deny clients)."""

from __future__ import annotations

from typing import Callable

from google.cloud import firestore

from cardchat.schema import RATE_LIMITS, RateLimit


def _from_dict(d: dict | None) -> RateLimit:
    if not d:
        return RateLimit()
    return RateLimit(
        recent=list(d.get("recent") or []),
        day=d.get("day") or "",
        day_tokens=int(d.get("day_tokens") or 0),
    )


def get(db: firestore.Client, uid: str) -> RateLimit:
    snap = db.collection(RATE_LIMITS).document(uid).get()
    return _from_dict(snap.to_dict() if snap.exists else None)


def update(db: firestore.Client, uid: str, change: Callable[[RateLimit], RateLimit]) -> RateLimit:
    """Read-modify-write in one transaction; `change` may raise to refuse,
    and then nothing is written."""
    ref = db.collection(RATE_LIMITS).document(uid)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> RateLimit:
        snap = ref.get(transaction=tx)
        state = change(_from_dict(snap.to_dict() if snap.exists else None))
        tx.set(ref, state.to_dict())
        return state

    # one user rarely races themselves, but a double click must not fail
    return run(db.transaction(max_attempts=10))
