"""syncCards' domain (chat/card_sync.py) over a folder written out as files: the first sync (the
hashes, then every text the server asks for, in requests of at most MAX_FILES) until every card
is written, and the re-sync of the unchanged folder (hashes only: no text sent, no card write).

The demo deck's size and a 10,000-file folder (goals: ≤ 60 s for 10,000 files, ≤ 5 s to re-sync
them unchanged). The Firestore emulator only: no trigger runs, so this is the time until the
cards are written, embeddings after; HTTP and the token check (one document read each request)
are not in it."""

from __future__ import annotations

import hashlib
import time

from benchmarks.common import sized
from cardchat.chat import card_sync
from cardchat.parsing.sync_requests import MAX_FILES, SyncFile, SyncRequest
from cardchat.schema.card_syncs import CARD_SYNCS
from cardchat.schema.documents import CARDS

OWNER = "bench-sync"


def _folder(n: int) -> dict[str, str]:
    """`n` notes in a hundred folders, each with front matter, a hashtag and a wikilink."""
    return {
        f"area-{i % 100:02d}/note-{i:05d}.md": (
            f"---\ntitle: Note {i}\ntags: [bench]\n---\nWhat note {i} says about #topic{i % 50}, "
            f"with a link to [[note-{(i + 1) % n:05d}]].\n" + "A line of the note's text. " * 20
        )
        for i in range(n)
    }


def _requests(files: list[SyncFile]) -> list[SyncRequest]:
    return [SyncRequest("vault", files[i : i + MAX_FILES]) for i in range(0, len(files), MAX_FILES)]


def _sync(db, folder: dict[str, str]) -> tuple[float, float, int, int]:
    """(first sync s, unchanged re-sync s, cards created, card writes of the re-sync)."""
    hashes = {p: hashlib.sha256(t.encode()).hexdigest() for p, t in folder.items()}
    listing = [SyncFile(p, h) for p, h in hashes.items()]
    start = time.perf_counter()
    need = [p for r in _requests(listing) for p in card_sync.sync(db, OWNER, r).need]
    texts = [SyncFile(p, hashes[p], folder[p]) for p in need]
    created = sum(card_sync.sync(db, OWNER, r).created for r in _requests(texts))
    first = time.perf_counter() - start
    start = time.perf_counter()
    again = [card_sync.sync(db, OWNER, r) for r in _requests(listing)]
    resync = time.perf_counter() - start
    return first, resync, created, sum(a.created + a.updated + a.deleted for a in again)


def run(db) -> list[str]:
    lines = []
    for n in sized((1_106, 10_000), (5,)):
        for name in (CARDS, CARD_SYNCS):
            db.recursive_delete(db.collection(name))
        first, resync, created, writes = _sync(db, _folder(n))
        lines.append(
            f"syncCards, {n:6d} files: first sync {first:6.1f} s ({created} cards written), "
            f"unchanged re-sync {resync:5.2f} s ({writes} card writes; goals at 10,000: ≤ 60 s, ≤ 5 s)"
        )
    return lines
