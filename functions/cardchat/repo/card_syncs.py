"""Firestore side of syncCards: an owner's sync records of one source (card_syncs), the source's
path index (card_sync_paths), and the card writes of a sync, each card with its record and its
path's place in the index in one batch, each on the condition that the
card is still as it was read (repo.card_writes' preconditions)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import firestore
from google.cloud.firestore import FieldFilter

from cardchat import ids
from cardchat.repo.card_writes import BATCH_BYTES
from cardchat.schema.card_syncs import CARD_SYNC_PATHS, CARD_SYNCS, CardSync, SyncPaths, link_name
from cardchat.schema.documents import CARDS, Card

#: Files per batch: a card and its record are two writes, and the path index's shards at most
#: 128 more (64 added to, 64 removed from), each counted twice where a transform counts as a write
#: of its own: under Firestore's 500.
_FILES_PER_BATCH = 120


@dataclass
class FileWrite:
    """The file `path`'s change: `card` written (None: deleted) with its `record` (None: deleted),
    on the condition that the card is as read at `read_time` (None: absent then)."""

    path: str
    card: Card | None
    record: CardSync | None
    read_time: Any = None
    #: An update keeps what the sync does not own (viewers, created, derived_from).
    fields: dict[str, Any] | None = None


class SyncConflict(Exception):
    """A batch's condition failed: a card was changed in the app while the sync ran. `written`:
    files of earlier batches."""

    def __init__(self, written: int) -> None:
        super().__init__("a card changed while syncing")
        self.written = written


def records_of(db: firestore.Client, owner: str, source: str) -> dict[str, CardSync]:
    """The owner's records of `source`, by path."""
    query = db.collection(CARD_SYNCS).where(filter=FieldFilter("owner", "==", owner))
    query = query.where(filter=FieldFilter("source", "==", source))
    records = (CardSync.from_dict(s.to_dict() or {}) for s in query.stream())
    return {r.path: r for r in records}


def records_among(db: firestore.Client, card_ids: Sequence[str]) -> dict[str, CardSync]:
    """The records of the cards `card_ids` (by id in one batched read, however many the source
    holds), by path; only what a sync decides by, `synced` left at its default: a re-sync reads a
    record per file it lists, and nothing reads the rest of it."""
    col = db.collection(CARD_SYNCS)
    refs = [col.document(i) for i in dict.fromkeys(card_ids)]
    found = (s for s in db.get_all(refs, field_paths=_DECIDED_BY) if s.exists)
    records = (CardSync.from_dict(s.to_dict() or {}) for s in found)
    return {r.path: r for r in records}


#: The fields of a record records_among reads.
_DECIDED_BY = ["owner", "card", "source", "path", "sha256", "card_hash"]


def paths_named(db: firestore.Client, owner: str, source: str, names: Sequence[str], build: bool = True) -> list[str]:
    """The paths the owner's `source` has synced whose link_name is one of `names`: read by id
    from the source's path index (card_sync_paths), never by a query over its records, but once
    for a source synced before it had an index, which builds it (unless not `build`: a dry run)."""
    col, wanted = db.collection(CARD_SYNC_PATHS), set(names)
    built = ids.sync_paths_built_id(owner, source)
    keys = sorted({ids.sync_paths_id(owner, source, n) for n in wanted})
    snaps = {s.id: s for s in db.get_all([col.document(k) for k in [built, *keys]])}
    if not snaps[built].exists:
        paths = list(records_of(db, owner, source))
        if build:
            _build_index(db, owner, source, paths)
    else:
        found = (snaps[k] for k in keys if snaps[k].exists)
        paths = [p for s in found for p in SyncPaths.from_dict(s.to_dict() or {}).paths]
    return [p for p in paths if link_name(p) in wanted]


def _build_index(db: firestore.Client, owner: str, source: str, paths: list[str]) -> None:
    """The index of a source from its records, then its mark: from then on every write keeps it."""
    shards: dict[str, list[str]] = defaultdict(list)
    for p in paths:
        shards[ids.sync_paths_id(owner, source, link_name(p))].append(p)
    col, items = db.collection(CARD_SYNC_PATHS), list(shards.items())
    for i in range(0, len(items), 400):
        batch = db.batch()
        for key, part in items[i : i + 400]:
            batch.set(col.document(key), {"owner": owner, "paths": firestore.ArrayUnion(part)}, merge=True)
        batch.commit()
    col.document(ids.sync_paths_built_id(owner, source)).set({"owner": owner})


def write(db: firestore.Client, owner: str, source: str, changes: Sequence[FileWrite]) -> int:
    """Every change, in batches, each with its part of the source's path index; the files
    written. SyncConflict when one's condition failed."""
    cards, records = db.collection(CARDS), db.collection(CARD_SYNCS)
    written = 0
    for chunk in _batches(changes):
        batch = db.batch()
        for c in chunk:
            cid = ids.synced_card_id(owner, source, c.path)
            ref = cards.document(cid)
            option = db.write_option(last_update_time=c.read_time) if c.read_time is not None else None
            if c.card is None and option is not None:
                batch.delete(ref, option=option)
            elif c.card is not None and option is None:
                batch.create(ref, c.card.to_dict())
            elif c.card is not None:
                batch.update(ref, c.fields or c.card.to_dict(), option=option)
            if c.record is None:
                batch.delete(records.document(cid))
            else:
                batch.set(records.document(cid), c.record.to_dict())
        _index_paths(db, batch, owner, source, chunk)
        try:
            batch.commit()
        except (gexc.AlreadyExists, gexc.FailedPrecondition, gexc.NotFound) as e:
            raise SyncConflict(written) from e
        written += len(chunk)
    return written


def _index_paths(db: firestore.Client, batch: Any, owner: str, source: str, chunk: list[FileWrite]) -> None:
    """The batch's paths into (a record written) or out of (deleted) their shards of the index."""
    added: dict[str, list[str]] = defaultdict(list)
    removed: dict[str, list[str]] = defaultdict(list)
    for c in chunk:
        (added if c.record is not None else removed)[ids.sync_paths_id(owner, source, link_name(c.path))].append(c.path)
    col = db.collection(CARD_SYNC_PATHS)
    for key, paths in added.items():
        batch.set(col.document(key), {"owner": owner, "paths": firestore.ArrayUnion(paths)}, merge=True)
    for key, paths in removed.items():
        batch.set(col.document(key), {"owner": owner, "paths": firestore.ArrayRemove(paths)}, merge=True)


def _batches(changes: Sequence[FileWrite]) -> Iterator[list[FileWrite]]:
    chunk: list[FileWrite] = []
    size = 0
    for c in changes:
        n = 500 + (len(c.card.body.encode()) + len(c.card.title.encode()) if c.card else 0)
        if chunk and (len(chunk) == _FILES_PER_BATCH or size + n > BATCH_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(c)
        size += n
    if chunk:
        yield chunk
