"""Firestore side of the admin CLI's bulk card writes and full scans.
(Reads by id for chats are repo.cards.load_cards; user documents are repo.users.)"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import firestore

from cardchat.schema.documents import CARDS, Card

BATCH = 500  # Firestore's limit of writes per batch
#: Bytes of card text per commit: Firestore takes requests of up to 10 MiB and
#: its emulator 4 MiB (a bigger one is refused, and retried for a minute first).
#: A card holds at most ~1 MiB, so one always fits.
BATCH_BYTES = 3_000_000


@dataclass
class StoredCard:
    card: Card
    #: When it was last written, as read: a rewrite is made on the condition
    #: that it still is (nobody changed it, or its owner, since).
    update_time: Any


class CardsChanged(Exception):
    """A batch's preconditions failed: `ids` were created or changed by
    someone else after they were read. `written`: cards of earlier batches."""

    def __init__(self, ids: list[str], written: int) -> None:
        super().__init__(f"changed since read: {', '.join(ids)}")
        self.ids, self.written = ids, written


def read_cards(db: firestore.Client, ids: Sequence[str]) -> dict[str, StoredCard]:
    """The existing cards among `ids` with their update times (the SDK's
    get_all: an admin command, where the time matters more than speed)."""
    col = db.collection(CARDS)
    out: dict[str, StoredCard] = {}
    unique = list(dict.fromkeys(ids))
    for i in range(0, len(unique), BATCH):
        for snap in db.get_all([col.document(cid) for cid in unique[i : i + BATCH]]):
            if snap.exists:
                out[snap.id] = StoredCard(Card.from_dict(snap.to_dict() or {}), snap.update_time)
    return out


def write_cards(
    db: firestore.Client,
    cards: Sequence[tuple[str, Card]],
    read_times: Mapping[str, Any],
    progress: Any = None,
) -> None:
    """Write whole cards in batches (at most BATCH cards and BATCH_BYTES of
    text each), each card only if it is still as it was read: a card absent
    then is created (fails if it exists now), a card read at `read_times[id]`
    is rewritten only if unchanged since. A batch whose condition fails
    writes nothing and raises CardsChanged; earlier batches stay written.
    `progress` (a tqdm) is advanced per batch."""
    col = db.collection(CARDS)
    written = 0
    for chunk in _batches(cards):
        batch = db.batch()
        for cid, card in chunk:
            seen = read_times.get(cid)
            if seen is None:
                batch.create(col.document(cid), card.to_dict())
            else:
                # Every field of a card is a top-level scalar or list, so an
                # update of all of them rewrites the card as set() would.
                batch.update(col.document(cid), card.to_dict(), option=db.write_option(last_update_time=seen))
        try:
            batch.commit()
        except (gexc.AlreadyExists, gexc.FailedPrecondition, gexc.NotFound) as e:
            raise CardsChanged(_changed(db, [cid for cid, _ in chunk], read_times), written) from e
        written += len(chunk)
        if progress is not None:
            progress.update(len(chunk))


def _batches(cards: Sequence[tuple[str, Card]]) -> Iterator[list[tuple[str, Card]]]:
    chunk: list[tuple[str, Card]] = []
    size = 0
    for cid, card in cards:
        n = 200 + len(cid) + sum(len(s.encode()) for s in (card.title, card.body, *card.viewers, *card.tags))
        if chunk and (len(chunk) == BATCH or size + n > BATCH_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append((cid, card))
        size += n
    if chunk:
        yield chunk


def _changed(db: firestore.Client, ids: list[str], read_times: Mapping[str, Any]) -> list[str]:
    """Which of `ids` no longer are as they were read (all of them when none
    can be told apart: the batch failed as a whole)."""
    now = {cid: s.update_time for cid, s in read_cards(db, ids).items()}
    return [cid for cid in ids if now.get(cid) != read_times.get(cid)] or ids


def iter_cards(db: firestore.Client) -> Iterator[tuple[str, Card]]:
    for snap in db.collection(CARDS).stream():
        yield snap.id, Card.from_dict(snap.to_dict() or {})
