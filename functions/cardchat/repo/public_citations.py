"""Chat.public_citations written entry by entry: by an answer's final write (repo/messages.finish),
which adds the public cards it cites, and by a re-check (repo/chats.py), which drops withdrawn ones;
apart from both so that neither adapter imports the other."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.cloud import firestore


def citation_fields(entries: Mapping[str, str | None]) -> dict[str, Any]:
    """An update of Chat.public_citations entry by entry (a card id, or None to remove the
    number), so that a re-check and an answer's final write never undo each other's."""
    return {f"public_citations.{int(n)}": firestore.DELETE_FIELD if cid is None else cid for n, cid in entries.items()}
