"""Reading cards in bulk.

A chat over thousands of cards cannot afford one round trip per card:
ids are read with get_all in chunks, the chunks in parallel.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TypeVar

from ..schema import CARDS, Card

CHUNK = 300
WORKERS = 8

if TYPE_CHECKING:
    from google.cloud import firestore

T = TypeVar("T")


def chunked(ids: Sequence[str], size: int = CHUNK) -> list[Sequence[str]]:
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def parallel_get_all(
    db: firestore.Client,
    collection: str,
    ids: Sequence[str],
    convert: Callable[[str, dict[str, Any]], T | None],
    field_paths: Sequence[str] | None = None,
) -> Iterator[tuple[str, T]]:
    """(id, convert(id, data)) for each existing document among `ids`.
    Missing documents and those `convert` maps to None are left out."""
    chunks = chunked(list(dict.fromkeys(ids)))
    if not chunks:
        return iter(())

    def read(chunk: Sequence[str]) -> list[tuple[str, T]]:
        refs = [db.collection(collection).document(i) for i in chunk]
        found: list[tuple[str, T]] = []
        for snap in db.get_all(refs, field_paths=list(field_paths) if field_paths else None):
            if snap.exists:
                value = convert(snap.id, snap.to_dict() or {})
                if value is not None:
                    found.append((snap.id, value))
        return found

    if len(chunks) == 1:
        return iter(read(chunks[0]))
    with ThreadPoolExecutor(max_workers=min(WORKERS, len(chunks))) as pool:
        results = list(pool.map(read, chunks))
    return (item for result in results for item in result)


def load_cards(db: firestore.Client, card_ids: Sequence[str]) -> dict[str, Card]:
    """The existing cards among `card_ids`, in the order asked; missing ids are dropped."""
    found = dict(parallel_get_all(db, CARDS, card_ids, lambda _id, data: Card.from_dict(data)))
    return {i: found[i] for i in dict.fromkeys(card_ids) if i in found}
