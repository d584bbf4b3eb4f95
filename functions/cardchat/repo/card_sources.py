"""Other people's cards a user chose, read for a collection: cards shared with
them (less the sharers they hide, card_sources/{uid}). Each read grows with
what was shared with the caller, never with anyone's public cards."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.cloud.firestore import FieldFilter

from ..schema.accounts import CARD_SOURCES, CardSources
from ..schema.documents import CARDS, Card
from .cards import READS

if TYPE_CHECKING:
    from google.cloud import firestore


def hidden_sharers(db: firestore.Client, uid: str) -> frozenset[str]:
    """The owners whose shared cards `uid` hides (none without a card_sources document)."""
    READS[CARD_SOURCES] += 1
    snap = db.collection(CARD_SOURCES).document(uid).get()
    return frozenset(CardSources.from_dict(snap.to_dict() or {}).hidden_sharers) if snap.exists else frozenset()


def shared_with(db: firestore.Client, uid: str, hidden: frozenset[str] = frozenset()) -> dict[str, Card]:
    """Other owners' private cards whose viewers hold `uid`, less those of `hidden` owners; by id.
    Counted in cards.READS like a read by id."""
    found: dict[str, Card] = {}
    query = db.collection(CARDS).where(filter=FieldFilter("viewers", "array_contains", uid))
    for snap in query.stream():
        READS[CARDS] += 1
        card = Card.from_dict(snap.to_dict() or {})
        if card.owner != uid and card.owner not in hidden and card.visible_to(uid):
            found[snap.id] = card
    return dict(sorted(found.items()))
