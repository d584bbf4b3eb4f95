"""Queries that list what one user may see: the cards they may view and their
own chats (the card MCP endpoint's search_cards and list_chats). The same
three card queries the SPA runs under firestore.rules."""

from __future__ import annotations

from typing import Any

from google.cloud import firestore
from google.cloud.firestore import FieldFilter

from cardchat.schema.documents import CARDS, CHATS, Card


def visible_cards(db: firestore.Client, uid: str) -> dict[str, Card]:
    """Every card `uid` may view (documents.Card.visible_to): their own, those
    whose viewers name them, and public ones; each once, by id."""
    cards = db.collection(CARDS)
    queries = [
        cards.where(filter=FieldFilter("owner", "==", uid)),
        cards.where(filter=FieldFilter("viewers", "array_contains", uid)),
        cards.where(filter=FieldFilter("visibility", "==", "public")),
    ]
    found: dict[str, Card] = {}
    for query in queries:
        for snap in query.stream():
            if snap.id not in found:
                found[snap.id] = Card.from_dict(snap.to_dict() or {})
    return {cid: card for cid, card in found.items() if card.visible_to(uid)}


def owner_chats(db: firestore.Client, uid: str, limit: int) -> list[tuple[str, dict[str, Any]]]:
    """The owner's chats, most recently updated first."""
    query = (
        db.collection(CHATS)
        .where(filter=FieldFilter("owner", "==", uid))
        .order_by("last_updated", direction=firestore.Query.DESCENDING)
        .limit(limit)
    )
    return [(snap.id, snap.to_dict() or {}) for snap in query.stream()]
