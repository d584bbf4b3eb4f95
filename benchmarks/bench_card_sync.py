"""syncCards over a folder written out as files: the first sync (the hashes, then every text the
server asks for, in requests of at most MAX_FILES) until every card is written, and the re-sync of
the unchanged folder (hashes only: no text sent, no card write).

The demo deck's size and a 10,000-file folder (goals: ≤ 60 s for 10,000 files, ≤ 5 s to re-sync
them unchanged), two ways:

  domain       chat/card_sync.py called in this process on the Firestore emulator: no HTTP, no
               token check, no client
  end to end   the real client (clients/cardchat-sync/cardchat_sync.py) run as a user runs it,
               re-syncing the unchanged folder through the Functions emulator's syncCards with a
               write token (checked at every request), timed until it exits; then once more in
               this process, counting the texts it sent and the `need` it was answered

Runs under `scripts/bench card_sync` on Auth, Firestore and Functions of its own, background
triggers paused throughout (no card needs embedCard here): the time until the cards are written,
embeddings after. The end-to-end folder's first sync goes through the domain: through HTTP, its
requests and the re-sync's would outrun a token's minute of requests (access_tokens.per_minute)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from google.cloud.firestore import FieldFilter

from benchmarks.bench_sync_watch import CLIENT, _write_token
from benchmarks.common import sized, triggers_paused
from cardchat.chat import card_sync
from cardchat.parsing.sync_requests import MAX_FILES, SyncFile, SyncRequest
from cardchat.schema.card_syncs import CARD_SYNC_PATHS, CARD_SYNCS
from cardchat.schema.documents import CARDS

OWNER = "bench-sync"
SOURCE = "vault"


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
    return [SyncRequest(SOURCE, files[i : i + MAX_FILES]) for i in range(0, len(files), MAX_FILES)]


def _sync(db: Any, folder: dict[str, str], owner: str = OWNER) -> tuple[float, float, int, int]:
    """(first sync s, unchanged re-sync s, cards created, card writes of the re-sync)."""
    hashes = {p: hashlib.sha256(t.encode()).hexdigest() for p, t in folder.items()}
    listing = [SyncFile(p, h) for p, h in hashes.items()]
    start = time.perf_counter()
    need = [p for r in _requests(listing) for p in card_sync.sync(db, owner, r).need]
    texts = [SyncFile(p, hashes[p], folder[p]) for p in need]
    created = sum(card_sync.sync(db, owner, r).created for r in _requests(texts))
    first = time.perf_counter() - start
    start = time.perf_counter()
    again = [card_sync.sync(db, owner, r) for r in _requests(listing)]
    resync = time.perf_counter() - start
    return first, resync, created, sum(a.created + a.updated + a.deleted for a in again)


def _client_run(root: Path, url: str, token: str) -> tuple[int, int, int, float]:
    """The client's main() once in this process, every request counted: (exit code, texts sent,
    paths the server answered `need`, s its scan of the folder takes alone)."""
    spec = importlib.util.spec_from_file_location("cardchat_sync_bench", CLIENT)
    assert spec is not None and spec.loader is not None
    client = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(client)
    counts = {"texts": 0, "need": 0}
    post = client.Server.post

    def counting(server: Any, files: list[dict[str, Any]], *args: Any, **kwargs: Any) -> dict[str, Any]:
        counts["texts"] += sum("markdown" in f for f in files)
        answer: dict[str, Any] = post(server, files, *args, **kwargs)
        counts["need"] += len(answer.get("need") or [])
        return answer

    client.Server.post = counting
    with contextlib.redirect_stdout(io.StringIO()):
        code = client.main([str(root), "--url", url, "--token", token, "--source", SOURCE])
    start = time.perf_counter()
    client.scan(root)
    return code, counts["texts"], counts["need"], time.perf_counter() - start


def _written_since(db: Any, uid: str, since: datetime) -> int:
    """The owner's cards and sync records written at or after `since`."""
    cards = db.collection(CARDS).where(filter=FieldFilter("owner", "==", uid)).select(["updated"]).stream()
    records = db.collection(CARD_SYNCS).where(filter=FieldFilter("owner", "==", uid)).select(["synced"]).stream()
    return sum(s.get("updated") >= since for s in cards) + sum(s.get("synced") >= since for s in records)


def _end_to_end(db: Any, folder: dict[str, str]) -> list[str]:
    base = f"http://{os.environ['CARDCHAT_FUNCTIONS_HOST']}/{db.project}/us-central1"
    uid, token = _write_token(base)
    url, n = f"{base}/syncCards", len(folder)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, text in folder.items():
            (root / rel).parent.mkdir(exist_ok=True)
            (root / rel).write_text(text)
        _sync(db, folder, uid)
        since = datetime.now(UTC)
        argv = [sys.executable, str(CLIENT), str(root), "--url", url, "--token", token, "--source", SOURCE]
        start = time.perf_counter()
        out = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        took = time.perf_counter() - start
        if out.returncode or out.stdout.strip() != f"0 created, 0 updated, {n} unchanged, 0 deleted":
            raise RuntimeError(f"the re-sync: exit {out.returncode}, {out.stdout!r} {out.stderr[-500:]!r}")
        code, texts, need, scan = _client_run(root, url, token)
    writes = _written_since(db, uid, since)
    if code or texts or need or writes:
        raise RuntimeError(f"the re-sync wrote or sent: exit {code}, {texts} texts, {need} needed, {writes} writes")
    requests = -(-n // MAX_FILES)
    return [
        f"cardchat-sync, {n:6d} files, end to end: unchanged re-sync {took:5.2f} s until the client exited "
        f"({requests} requests over HTTP, each token-checked; of it, the client's scan and hashing of the folder "
        f"{scan:4.2f} s; {texts} texts sent, need empty, {writes} card or record writes; goal at 10,000: ≤ 5 s)"
    ]


def run(db: Any) -> list[str]:
    lines = []
    sizes = sized((1_106, 10_000), (5,))
    with triggers_paused():
        for n in sizes:
            for name in (CARDS, CARD_SYNCS, CARD_SYNC_PATHS):
                db.recursive_delete(db.collection(name))
            first, resync, created, writes = _sync(db, _folder(n))
            lines.append(
                f"syncCards, {n:6d} files, domain: first sync {first:6.1f} s ({created} cards written), "
                f"unchanged re-sync {resync:5.2f} s ({writes} card writes; goals at 10,000: ≤ 60 s, ≤ 5 s)"
            )
        lines += _end_to_end(db, _folder(sizes[-1]))
    return lines
