"""Rebuilding an owner's retrieval index (or its public partition) from their cards
and stored vectors.

The first createChat or searchCards of an owner without an index rebuilds it
inside its own call, in a function of bounded memory (endpoints/): holding every
card of a large collection with its body, every vector and every entry at
once overran it. So the rebuild streams: it reads the cards a page at a time
(only the fields an entry is made of, in id order), their stored vectors
page by page (past the vector cache: ranking uses the index's int8 copies),
turns each page into entries and lets go of the texts. Until the shards are
packed it keeps the entries packed by slot in small `encode_shard` chunks,
far smaller than the `Entry` objects. The number of slots is guessed
from a count of the cards and the first page; at the end it is the one
`_slots` gives for all the entries (their number, the first PROBE of them),
the chunks regrouped if the guess was off, so the shards written are those
of a rebuild that held everything (tested with pages of 7 against 1,000).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from google.cloud.firestore import FieldFilter

from ...embeddings.scripts import TERMS_VERSION
from ...embeddings.text import embeddable_and_hash
from ...retrieval.index_entries import Entry, decode_shard, encode_shard, make_entry
from ...schema.documents import CARDS, RETRIEVAL_INDEX_SHARDS, Card, now
from ..embeddings import load_embeddings
from .shards import (
    ATTEMPTS,
    MAX_SHARD_BYTES,
    TARGET_SHARD_BYTES,
    IndexConflict,
    delete_shards,
    index_key,
    read_head,
    slot_of,
    swap_head,
    write_shards,
)

if TYPE_CHECKING:
    from google.cloud import firestore

#: Cards read and turned into entries at a time: their texts and entries are
#: all a rebuild holds beyond the packed chunks.
PAGE = 2000
#: The first entries (in id order) whose packed size estimates an entry's.
PROBE = 200
#: What an entry is made of (the owner is the one asked for).
_FIELDS = ["title", "body", "visibility", "viewers", "tags", "updated"]


def rebuild(
    db: firestore.Client, owner: str, model_id: str | None = None, *, public: bool = False, page_size: int = PAGE
) -> int:
    """The owner's index (`public`: of their public cards alone) from scratch, from their cards
    and stored vectors (`model_id`'s; default: the embedder in use), reading `page_size` cards
    at a time; returns the version written."""
    from ...embeddings import get_embedder

    model = model_id or get_embedder().model_id
    key = index_key(owner, public)
    shards = Shards(count_cards(db, owner, public))
    for page in _pages(db, owner, page_size, public):
        shards.add(_entries(db, page, model))
    blobs = shards.blobs()
    for _ in range(ATTEMPTS):
        head = read_head(db, owner, public)
        version = int(head["version"]) + 1 if head else 1
        named = write_shards(db, key, version, dict(enumerate(blobs)))
        shard_ids = [named[s] for s in range(len(blobs))]
        new_head = {
            "owner": owner,
            "public": public,
            "version": version,
            "slots": len(blobs),
            "shards": shard_ids,
            "model": model,
            "terms": TERMS_VERSION,
            "dim": shards.dim,
            "count": shards.count,
            "updated": now(),
        }
        try:
            swap_head(db, key, int(head["version"]) if head else None, new_head, list(named.values()))
        except IndexConflict:
            continue
        _delete_orphans(db, key, version, set(shard_ids))
        return version
    raise IndexConflict(f"retrieval index {key}: could not swap the rebuilt head")


def _cards_of(db: firestore.Client, owner: str, public: bool) -> Any:
    """The query of the owner's cards (`public`: their public ones)."""
    query = db.collection(CARDS).where(filter=FieldFilter("owner", "==", owner))
    return query.where(filter=FieldFilter("visibility", "==", "public")) if public else query


def count_cards(db: firestore.Client, owner: str, public: bool = False) -> int:
    """How many cards (`public`: public cards) the owner has: one aggregation, not a read of each
    (a rebuild's first guess at its slots)."""
    # Any: the client's stubs type count() and get() wrongly (get answers a list of lists).
    query: Any = _cards_of(db, owner, public)
    result = query.count().get()
    return int(result[0][0].value) if result and result[0] else 0


def _pages(db: firestore.Client, owner: str, size: int, public: bool = False) -> Iterator[dict[str, Card]]:
    """The owner's cards, `size` at a time in id order, cut from one query's stream: a query
    per page (`start_after`) is several times slower on the emulator, which runs each from
    the start. The stream hands over documents as they are asked for, and the client resumes
    one that breaks after the last document it gave."""
    query = _cards_of(db, owner, public).order_by("__name__").select(_FIELDS)
    stream = iter(query.stream())
    while page := list(itertools.islice(stream, size)):
        yield {s.id: Card.from_dict({**(s.to_dict() or {}), "owner": owner}) for s in page}


def _entries(db: firestore.Client, page: dict[str, Card], model: str) -> list[Entry]:
    hashes = {c: embeddable_and_hash(k.title, k.body)[1] for c, k in page.items()}
    vectors = load_embeddings(db, hashes, model, remember=False)
    return [make_entry(c, k, vectors.get(c)) for c, k in page.items()]


def _slots(probe: Sequence[Entry], count: int, dim: int) -> int:
    """Slots for `count` entries of shards of about TARGET_SHARD_BYTES, by the packed size
    of the first ones (`probe`, up to PROBE of them)."""
    per_entry = len(encode_shard(list(probe), dim)) / max(1, len(probe))
    return max(1, math.ceil(per_entry * count / TARGET_SHARD_BYTES))


class Shards:
    """Entries in, page by page in id order; shard blobs out, each under MAX_SHARD_BYTES.
    Meanwhile each slot's entries are held as `encode_shard` chunks, one per page."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.slots = 0
        self.chunks: list[list[bytes]] = []
        self.probe: list[Entry] = []
        self.count = 0
        self.dim = 0

    def add(self, entries: Sequence[Entry]) -> None:
        if not self.dim:  # as a rebuild of all: the first vector's, in id order
            self.dim = next((int(e.vector.size) for e in entries if e.vector is not None), 0)
        self.probe += entries[: PROBE - len(self.probe)]
        self.count += len(entries)
        if not self.slots:  # a guess, checked in blobs()
            self.slots = _slots(self.probe, max(self.expected, self.count), self.dim)
            self.chunks = [[] for _ in range(self.slots)]
        _spread(entries, self.chunks, self.dim)

    def blobs(self) -> list[bytes]:
        """The shards (as many as `_slots` gives for all the entries, doubled until each
        fits), each slot's entries sorted by id; the chunks are let go of slot by slot."""
        slots = _slots(self.probe, self.count, self.dim)
        while True:
            self._regroup(slots)
            blobs = []
            for s in range(slots):
                entries = [e for chunk in self.chunks[s] for e in decode_shard(chunk)[0]]
                self.chunks[s] = []
                blobs.append(encode_shard(sorted(entries, key=lambda e: e.id), self.dim))
            if all(len(b) <= MAX_SHARD_BYTES for b in blobs):
                return blobs
            self.chunks = [[b] for b in blobs]  # a shard is a chunk of its slot's entries
            slots *= 2

    def _regroup(self, slots: int) -> None:
        if slots == self.slots:
            return
        old, self.slots, self.chunks = self.chunks, slots, [[] for _ in range(slots)]
        for s, chunks in enumerate(old):
            _spread([e for chunk in chunks for e in decode_shard(chunk)[0]], self.chunks, self.dim)
            old[s] = []


def _spread(entries: Sequence[Entry], chunks: list[list[bytes]], dim: int) -> None:
    """`entries` appended to their slots' chunks (one new chunk per slot they fall in)."""
    groups: dict[int, list[Entry]] = {}
    for e in entries:
        groups.setdefault(slot_of(e.id, len(chunks)), []).append(e)
    for s, group in groups.items():
        chunks[s].append(encode_shard(group, dim))


def shard_blobs(entries: Sequence[Entry], dim: int) -> list[bytes]:
    """The shards of `entries` (in id order) held in memory already (the benches' seeding)."""
    shards = Shards(len(entries))
    shards.add(entries)
    shards.dim = dim
    return shards.blobs()


def _delete_orphans(db: firestore.Client, key: str, version: int, keep: set[str]) -> None:
    """Shards of this index's earlier versions that no head names (replaced,
    or left by a writer that stopped midway). A later writer's are kept."""
    stale = [
        s.id
        for s in db.collection(RETRIEVAL_INDEX_SHARDS)
        .where(filter=FieldFilter("owner", "==", key))
        .select(["version"])
        .stream()
        if s.id not in keep and int((s.to_dict() or {}).get("version", 0)) <= version
    ]
    delete_shards(db, stale)
