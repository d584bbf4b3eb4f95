"""Other people's cards a user chose, read for a collection: cards shared with
them by the people they accepted (card_sources/{uid}).

Sharing a card with someone needs nothing of them, so what a call reads must not
follow from it: each accepted sharer is one query (`owner == sharer` AND
`viewers array-contains uid`, paged in id order), never a query over every card
shared with the user, and all of them together stop at SHARED_CARDS_MAX. A
stranger who shares 100,000 cards with the user adds no read to any call of
theirs until the user accepts that stranger (`tests/chat/test_card_scopes.py`,
`scripts/bench scope`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from google.cloud.firestore import FieldFilter

from ..errors import FailedPrecondition
from ..schema.accounts import CARD_SOURCES, SHARED_CARDS_MAX, CardSources
from ..schema.documents import CARDS, Card
from .cards import READS

if TYPE_CHECKING:
    from google.cloud import firestore

#: Cards one query page asks for: a page is one RunQuery stream.
PAGE = 500


def accepted_sharers(db: firestore.Client, uid: str) -> list[str]:
    """The people whose shared cards `uid` accepted and has not stopped, in the order accepted
    (none without a card_sources document)."""
    READS[CARD_SOURCES] += 1
    snap = db.collection(CARD_SOURCES).document(uid).get()
    if not snap.exists:
        return []
    sources = CardSources.from_dict(snap.to_dict() or {})
    stopped = set(sources.hidden_sharers)
    return [s for s in dict.fromkeys(sources.accepted_sharers) if s != uid and s not in stopped]


def shared_by(db: firestore.Client, uid: str, sharers: Iterable[str], cap: int = SHARED_CARDS_MAX) -> dict[str, Card]:
    """The private cards of `sharers` whose viewers hold `uid`, by id; FailedPrecondition when
    they are more than `cap` together (one card past it is all that is read to know)."""
    found: dict[str, Card] = {}
    for sharer in sharers:
        found |= _one_sharer(db, uid, sharer, cap - len(found) + 1)
        if len(found) > cap:
            raise FailedPrecondition(
                f"The people you accepted share more than {cap:,} cards with you: "
                "stop one of them (Cards page, Shared with me), or choose cards by hand."
            )
    return dict(sorted(found.items()))


def _one_sharer(db: firestore.Client, uid: str, sharer: str, most: int) -> dict[str, Card]:
    """At most `most` of `sharer`'s cards shared with `uid`, in id order, a page at a time.
    Equality and array-contains filters alone: served from single-field indexes."""
    query = (
        db.collection(CARDS)
        .where(filter=FieldFilter("owner", "==", sharer))
        .where(filter=FieldFilter("viewers", "array_contains", uid))
    )
    out: dict[str, Card] = {}
    last = None
    while len(out) < most:
        size = min(PAGE, most - len(out))
        page = query.limit(size)
        snaps = list((page.start_after(last) if last is not None else page).stream())
        for snap in snaps:
            READS[CARDS] += 1
            card = Card.from_dict(snap.to_dict() or {})
            if card.visible_to(uid):
                out[snap.id] = card
        if len(snaps) < size:
            break
        last = snaps[-1]
    return out
