"""Reading cards in bulk.

A chat over thousands of cards cannot afford one round trip per card: ids are
read in batches of one BatchGetDocuments stream each (batchget.py). The batches
go one after another: decoding is Python work under the GIL, and on the
emulator (2 cores, 10,000 cards) parallel streams measured slower than
serial ones, which the server already pipelines. A stream that breaks midway
(a connection reset, a server going away) is asked again for the ids it had
not answered yet: reads are idempotent, and createChat should not fail on it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from google.api_core import exceptions as gexc

from ..schema.documents import CARDS, Card
from .batchget import batch_get

#: Ids per stream: fewer, longer streams measured fastest (`scripts/bench create_chat`);
#: a cap keeps each request far below 10 MiB.
BATCH = 2500
#: Streams per batch before a transient failure is passed on.
STREAM_ATTEMPTS = 3
_TRANSIENT = (gexc.ServiceUnavailable, gexc.DeadlineExceeded, gexc.InternalServerError, gexc.Aborted)

if TYPE_CHECKING:
    from google.cloud import firestore

T = TypeVar("T")


def batched(ids: Sequence[str], size: int) -> list[Sequence[str]]:
    return [ids[i : i + size] for i in range(0, len(ids), size)]


#: Documents asked of Firestore per Firestore collection by read_many, since the last clear: what
#: tests and scripts/bench count to show a call's reads do not grow with a collection.
READS: Counter[str] = Counter()


def read_many(
    db: firestore.Client,
    firestore_collection: str,
    ids: Sequence[str],
    convert: Callable[[str, dict[str, Any]], T | None],
    field_paths: Sequence[str] | None = None,
) -> Iterator[tuple[str, T]]:
    """(id, convert(id, data)) for each existing document among `ids`, each id
    asked once. Missing documents and those `convert` maps to None are left out."""
    for batch in batched(list(dict.fromkeys(ids)), BATCH):
        READS[firestore_collection] += len(batch)
        pending = list(batch)
        for attempt in range(STREAM_ATTEMPTS):
            answered: set[str] = set()
            try:
                for doc_id, data in batch_get(db, firestore_collection, pending, field_paths):
                    answered.add(doc_id)
                    value = None if data is None else convert(doc_id, data)
                    if value is not None:
                        yield doc_id, value
                break
            except _TRANSIENT:
                pending = [i for i in pending if i not in answered]
                if attempt == STREAM_ATTEMPTS - 1:
                    raise
                time.sleep(0.1 * 3**attempt)


def load_cards(db: firestore.Client, card_ids: Sequence[str]) -> dict[str, Card]:
    """The existing cards among `card_ids`, in the order asked; missing ids are dropped."""
    found = dict(read_many(db, CARDS, card_ids, lambda _id, data: Card.from_dict(data)))
    return {i: found[i] for i in dict.fromkeys(card_ids) if i in found}


#: The fields that decide who may read a card (documents.Card.visible_to).
ACCESS_FIELDS = ("owner", "visibility", "viewers")


def load_access(db: firestore.Client, card_ids: Sequence[str], updated: bool = False) -> dict[str, Card]:
    """Who may read each existing card among `card_ids`: Cards holding only
    ACCESS_FIELDS (no title or body is read), and with `updated` when it was last written."""
    fields = (*ACCESS_FIELDS, "updated") if updated else ACCESS_FIELDS
    return dict(read_many(db, CARDS, card_ids, lambda _id, data: Card.from_dict(data), fields))
