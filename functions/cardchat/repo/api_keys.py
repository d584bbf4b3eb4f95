"""user_api_keys/{uid}: a user's own provider API keys, sealed
(access/own_keys.py, llm/keycrypt.py), one map entry per provider. Server-only:
the rules deny every client, the owner and admins included."""

from __future__ import annotations

from typing import Any

from google.cloud import firestore

from cardchat.schema.accounts import USER_API_KEYS, StoredApiKey


def get(db: firestore.Client, uid: str) -> dict[str, dict[str, Any]]:
    """provider → the stored record, for every key `uid` holds."""
    snap = db.collection(USER_API_KEYS).document(uid).get()
    keys = (snap.to_dict() or {}).get("keys") if snap.exists else None
    return {p: dict(r) for p, r in (keys or {}).items() if isinstance(r, dict)}


def put(db: firestore.Client, uid: str, provider: str, record: StoredApiKey) -> None:
    """Stores (or replaces) `uid`'s key for `provider`."""
    db.collection(USER_API_KEYS).document(uid).set({"keys": {provider: record.to_dict()}}, merge=True)


def delete(db: firestore.Client, uid: str, provider: str) -> None:
    """Removes `uid`'s key for `provider`; nothing to remove is no error."""
    ref = db.collection(USER_API_KEYS).document(uid)
    if ref.get().exists:
        ref.update({f"keys.{provider}": firestore.DELETE_FIELD})  # provider ids are plain words
