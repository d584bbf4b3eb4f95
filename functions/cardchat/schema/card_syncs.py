"""Where a synced card came from (card_syncs/{card_id}): one definition, like documents.py.

syncCards writes a card from a file of the owner's folder, and this record beside it:
apart from the card, because a card is read by its viewers and by anyone when public,
while where it came from (the owner's folder names and paths) is the owner's alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cardchat.schema.documents import COLLECTIONS, Card, _dict, now

#: card_syncs/{card_id}: owner-readable (the app's "synced from"), server-written.
CARD_SYNCS = COLLECTIONS["card_syncs"]


@dataclass
class CardSync:
    """The file `path` of the owner's folder `source` last synced as the card `card`: the file's
    `sha256` as the client sent it, and `card_hash` (content_hash) of the card as that sync left
    it, which tells a card edited in the app since from one the sync wrote."""

    owner: str
    card: str
    source: str
    path: str
    sha256: str
    card_hash: str
    synced: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CardSync:
        return cls(
            owner=str(d.get("owner", "")),
            card=str(d.get("card", "")),
            source=str(d.get("source", "")),
            path=str(d.get("path", "")),
            sha256=str(d.get("sha256", "")),
            card_hash=str(d.get("card_hash", "")),
            synced=d.get("synced") or now(),
        )


def content_hash(card: Card) -> str:
    """What of a card a sync writes and an edit in the app may change: title, body, tags, visibility."""
    parts = [card.title, card.body, card.visibility, *card.tags]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()
