"""Queries that list what one user may see: the cards they may view and their
own chats (the card MCP endpoint's search_cards and list_chats). The same
three card queries the SPA runs under firestore.rules."""

from __future__ import annotations

from typing import Any

from google.cloud import firestore
from google.cloud.firestore import FieldFilter

from cardchat.collection_query import CollectionQuery
from cardchat.schema import CARDS, CHATS, Card


def visible_cards(db: firestore.Client, uid: str) -> dict[str, Card]:
    """Every card `uid` may view (schema.Card.visible_to): their own, those
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


#: What ranking and culling read of a card: no dates. The per-owner retrieval index will replace these reads.
RANKING_FIELDS = ("title", "body", "owner", "visibility", "viewers", "tags")


def query_cards(db: firestore.Client, uid: str, query: CollectionQuery) -> dict[str, Card]:
    """The cards in `query`'s collection for `uid` by everything but its text
    (CollectionQuery.admits: readable by `uid`, within scope, tag and
    visibility), by id in id order, read with a field mask (RANKING_FIELDS).
    The permitted card queries run with the query's own filters where
    Firestore can take them (one array-contains per query: the viewers
    query's tag is checked here); `admits` has the last word."""
    cards = db.collection(CARDS)
    where: list[list[FieldFilter]] = []
    if query.scope in ("visible", "mine"):
        where.append([FieldFilter("owner", "==", uid)])
    if query.scope in ("visible", "shared") and query.visibility != "public":
        where.append([FieldFilter("viewers", "array_contains", uid)])
    if query.scope in ("visible", "public") and query.visibility in (None, "public"):
        where.append([FieldFilter("visibility", "==", "public")])
    for filters in where:
        if query.tag is not None and filters[0].op_string != "array_contains":
            filters.append(FieldFilter("tags", "array_contains", query.tag))
        if query.visibility is not None and filters[0].field_path == "owner":
            filters.append(FieldFilter("visibility", "==", query.visibility))
    found: dict[str, Card] = {}
    for filters in where:
        q = cards.select(RANKING_FIELDS)
        for f in filters:
            q = q.where(filter=f)
        for snap in q.stream():
            if snap.id not in found:
                found[snap.id] = Card.from_dict(snap.to_dict() or {})
    return {cid: found[cid] for cid in sorted(found) if query.admits(found[cid], uid)}


def owner_chats(db: firestore.Client, uid: str, limit: int) -> list[tuple[str, dict[str, Any]]]:
    """The owner's chats, most recently updated first."""
    query = (
        db.collection(CHATS)
        .where(filter=FieldFilter("owner", "==", uid))
        .order_by("last_updated", direction=firestore.Query.DESCENDING)
        .limit(limit)
    )
    return [(snap.id, snap.to_dict() or {}) for snap in query.stream()]
