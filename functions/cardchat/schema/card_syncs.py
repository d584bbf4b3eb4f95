"""Where a synced card came from (card_syncs/{card_id}): one definition, like documents.py.

syncCards writes a card from a file of the owner's folder, and this record beside it:
apart from the card, because a card is read by its viewers and by anyone when public,
while where it came from (the owner's folder names and paths) is the owner's alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import PurePosixPath
from typing import Any

from cardchat.schema.documents import COLLECTIONS, Card, _dict, now

#: card_syncs/{card_id}: owner-readable (the app's "synced from"), server-written.
CARD_SYNCS = COLLECTIONS["card_syncs"]
#: card_sync_paths/{key}: server-only, the paths of an owner's source by link_name (ids.sync_paths_id).
CARD_SYNC_PATHS = COLLECTIONS["card_sync_paths"]
#: Shards of one source's path index: a request's links read at most these, by id.
PATH_SHARDS = 64
#: card_sync_runs/{key}: server-only, expiring (firestore.indexes.json TTL on `expires`).
CARD_SYNC_RUNS = COLLECTIONS["card_sync_runs"]
#: How long a sync run may take, from its first request to its last: its records expire together then.
SYNC_RUN_TTL = timedelta(days=1)


@dataclass
class CardSync:
    """The file `path` of the owner's folder `source` last synced as the card `card`: the file's
    `sha256` as the client sent it, and `card_hash` (content_hash) of the card as that sync left
    it, which tells a card edited in the app since from one the sync wrote."""

    owner: str
    card: str
    source: str
    path: str
    sha256: str
    card_hash: str
    synced: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return {**_dict(self), "name": link_name(self.path)}  # what a wikilink lookup queries

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CardSync:
        return cls(
            owner=str(d.get("owner", "")),
            card=str(d.get("card", "")),
            source=str(d.get("source", "")),
            path=str(d.get("path", "")),
            sha256=str(d.get("sha256", "")),
            card_hash=str(d.get("card_hash", "")),
            synced=d.get("synced") or now(),
        )


def link_name(path: str) -> str:
    """The bare name a `[[wikilink]]` may name a file by: its last name without its extension.
    A link names a file by that, or by its path without its extension, whose last name it is."""
    return PurePosixPath(PurePosixPath(path).with_suffix("")).name


@dataclass
class SyncPaths:
    """One shard of a source's path index: the synced paths whose link_name falls in it, so that
    a request's `[[wikilinks]]` find the files they may name (and whether a bare name is unique)
    in a few reads by id, however many files the source holds. Written with the records."""

    owner: str
    paths: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SyncPaths:
        return cls(str(d.get("owner", "")), [str(p) for p in d.get("paths", [])])


@dataclass
class SyncRun:
    """What the requests of one sync run (syncCards `run`) listed, so that its last request's
    delete_missing deletes only the cards of files no request of the run listed. The run's head
    (ids.sync_run_key) has no `cards` and fixes `expires` at the run's first request; each other
    request adds a part with the cards it listed and the head's `expires`, so that the TTL policy
    takes a run whole and a run past `expires` is refused whole, whatever the policy left of it."""

    owner: str
    run: str  # the head's key
    expires: datetime
    cards: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SyncRun:
        return cls(str(d.get("owner", "")), str(d.get("run", "")), d["expires"], [str(c) for c in d.get("cards", [])])


def content_hash(card: Card) -> str:
    """What of a card a sync writes and an edit in the app may change: title, body, tags, visibility."""
    parts = [card.title, card.body, card.visibility, *card.tags]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()
