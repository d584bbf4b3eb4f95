"""Queries that list what one user may see: their own chats (the card MCP endpoint's
list_chats)."""

from __future__ import annotations

from typing import Any

from google.cloud import firestore
from google.cloud.firestore import FieldFilter

from cardchat.schema.documents import CHATS


def owner_chats(db: firestore.Client, uid: str, limit: int) -> list[tuple[str, dict[str, Any]]]:
    """The owner's chats, most recently updated first."""
    query = (
        db.collection(CHATS)
        .where(filter=FieldFilter("owner", "==", uid))
        .order_by("last_updated", direction=firestore.Query.DESCENDING)
        .limit(limit)
    )
    return [(snap.id, snap.to_dict() or {}) for snap in query.stream()]
