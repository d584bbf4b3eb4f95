"""Saved collections (collections/{id}): their shape and limits, one definition, like documents.py. The
limits are common/collections.json's `saved_collection_limits`, which firestore.rules and the SPA hold too."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cardchat.schema.documents import COLLECTIONS, SHARED, _dict, now

#: collections/{id}: a user's saved collection (SavedCollection), written by its owner through the rules.
SAVED_COLLECTIONS = COLLECTIONS["collections"]

_LIMITS: dict[str, Any] = SHARED["saved_collection_limits"]
MAX_NAME_CHARS: int = _LIMITS["name_max_chars"]
MAX_INSTRUCTIONS_CHARS: int = _LIMITS["instructions_max_chars"]
MAX_COLLECTION_CARD_IDS: int = _LIMITS["card_ids_max"]


@dataclass
class SavedCollection:
    """collections/{id}: the owner's standing choice of cards, `query` (CollectionQuery.to_dict(): scope,
    owner, tag, text) or `card_ids` (exactly one), and `instructions` to the model, which reach it
    through the hidden background of every chat made from it and nowhere else."""

    owner: str
    name: str
    instructions: str = ""
    query: dict[str, Any] | None = None
    card_ids: list[str] | None = None
    created: datetime = field(default_factory=now)
    updated: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in _dict(self).items() if v is not None}
