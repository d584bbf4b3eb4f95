"""Saved collections (collections/{id}, schema/saved_collections.SavedCollection): the owner writes them
through the rules; the server reads one to make a chat from it, and writes them only for an
admin's tooling and the tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..schema.saved_collections import SAVED_COLLECTIONS, SavedCollection

if TYPE_CHECKING:
    from google.cloud import firestore


def get_collection(db: firestore.Client, collection_id: str) -> dict[str, Any] | None:
    snap = db.collection(SAVED_COLLECTIONS).document(collection_id).get()
    return snap.to_dict() if snap.exists else None


def put_collection(db: firestore.Client, collection_id: str, collection: SavedCollection) -> None:
    db.collection(SAVED_COLLECTIONS).document(collection_id).set(collection.to_dict())
