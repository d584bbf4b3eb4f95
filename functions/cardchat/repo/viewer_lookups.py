"""Firestore adapter for viewer_lookups/{uid} (server-only): a user's budget
of email look-ups and the uids they found by email (access/card_viewers.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from google.cloud import firestore

from cardchat.repo.transactions import update_document
from cardchat.schema.accounts import VIEWER_LOOKUPS, ViewerLookups


def _from_dict(d: dict[str, Any] | None) -> ViewerLookups:
    d = d or {}
    start = d.get("window_start")
    return ViewerLookups(
        window_start=start if isinstance(start, datetime) else datetime.min.replace(tzinfo=UTC),
        count=int(d.get("count") or 0),
        found=[str(u) for u in d.get("found") or []],
    )


def _ref(db: firestore.Client, uid: str) -> firestore.DocumentReference:
    return db.collection(VIEWER_LOOKUPS).document(uid)


def get(db: firestore.Client, uid: str) -> ViewerLookups:
    snap = _ref(db, uid).get()
    return _from_dict(snap.to_dict() if snap.exists else None)


def update(db: firestore.Client, uid: str, change: Callable[[ViewerLookups], ViewerLookups]) -> ViewerLookups:
    """`change` applied to the stored state in one transaction; if it raises (a refusal), nothing is written."""
    return update_document(db, _ref(db, uid), _from_dict, change)


def remember(db: firestore.Client, uid: str, found: Iterable[str]) -> None:
    """Adds uids to those `uid` found by email (no read: concurrent look-ups both land)."""
    uids = list(dict.fromkeys(found))
    if uids:
        _ref(db, uid).set({"found": firestore.ArrayUnion(uids)}, merge=True)
