"""Firestore side of the admin CLI's bulk card writes and full scans.
(Reads by id are repo.cards.load_cards; user documents are repo.users.)"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from google.cloud import firestore

from cardchat.schema import CARDS, Card

BATCH = 500  # Firestore's limit of writes per batch


def write_cards(db: firestore.Client, cards: Sequence[tuple[str, Card]], progress: Any = None) -> None:
    """Set whole documents in batches of BATCH; `progress` (a tqdm) is advanced per batch."""
    col = db.collection(CARDS)
    for i in range(0, len(cards), BATCH):
        batch = db.batch()
        chunk = cards[i:i + BATCH]
        for cid, card in chunk:
            batch.set(col.document(cid), card.to_dict())
        batch.commit()
        if progress is not None:
            progress.update(len(chunk))


def iter_cards(db: firestore.Client) -> Iterator[tuple[str, Card]]:
    for snap in db.collection(CARDS).stream():
        yield snap.id, Card.from_dict(snap.to_dict())
