"""One file saved in a folder `cardchat-sync --watch` follows: the time until the next answer can
use its new text (goal: ≤ 15 s).

Runs under `scripts/bench sync_watch`, on Auth, Firestore and Functions of its own, so syncCards
and the embedCard trigger run as deployed. A fresh user makes a write token (createAccessToken),
the real client (clients/cardchat-sync/cardchat_sync.py) syncs a small folder and keeps watching
it, polling every POLL_S; once every card of the first sync is embedded and indexed (the
trigger warm), one file is edited at a time, each at a random point of the client's poll, and
each edit is timed in two parts:

  synced   saved → its card_syncs record holds the file's new sha256 (the client noticed the
           change at its next poll and syncCards wrote the card)
  indexed  synced → the owner's retrieval index holds the card's new text hash with a vector
           (embedCard embedded the new text and applied it to the index): what a chat's next
           answer ranks and packs from
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, sized
from cardchat import ids
from cardchat.embeddings.text import embeddable_and_hash
from cardchat.repo.card_syncs import records_among
from cardchat.repo.card_writes import read_cards
from cardchat.repo.retrieval_index.reader import all_entries

CLIENT = ROOT / "clients" / "cardchat-sync" / "cardchat_sync.py"
SOURCE = "bench-vault"
#: The client's poll interval (its default): a save waits up to this long to be noticed.
POLL_S = 2.0
GOAL_S = 15.0
#: A bound that only turns a hang into a failure.
PATIENCE_S = 300.0


def _post(url: str, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=120) as r:
        out: dict[str, Any] = json.loads(r.read())
        return out


def _write_token(base: str) -> tuple[str, str]:
    """A fresh user's uid and an access token of theirs with scope write."""
    auth = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
    user = _post(
        f"http://{auth}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key",
        {"email": f"bench-{uuid.uuid4().hex[:8]}@cardchat.test", "password": "bench-pass", "returnSecureToken": True},
    )
    made = _post(f"{base}/createAccessToken", {"data": {"label": "bench", "scope": "write"}}, user["idToken"])
    return user["localId"], made["result"]["token"]


def _path(i: int) -> str:
    return f"note-{i:03d}.md"


def _note(i: int, edit: int = 0) -> str:
    return f"# Note {i}\nWhat note {i} says about topic {i % 7}, version {edit}.\n" + "A line of it. " * 20 * (1 + edit)


def _wait(what: str, done: Any) -> float:
    """perf_counter when `done()` first holds, looked at every 0.1 s."""
    start = time.perf_counter()
    while not done():
        if time.perf_counter() - start > PATIENCE_S:
            raise RuntimeError(f"{what}: not after {PATIENCE_S:.0f} s")
        time.sleep(0.1)
    return time.perf_counter()


class Vault:
    """The folder, its owner and what the server holds of its files."""

    def __init__(self, db: Any, uid: str, root: Path) -> None:
        self.db, self.uid, self.root = db, uid, root

    def card_id(self, path: str) -> str:
        return ids.synced_card_id(self.uid, SOURCE, path)

    def synced(self, path: str) -> bool:
        """Whether the card holds the file as it is on disk now."""
        digest = hashlib.sha256((self.root / path).read_bytes()).hexdigest()
        record = records_among(self.db, [self.card_id(path)]).get(path)
        return record is not None and record.sha256 == digest

    def indexed(self, paths: list[str]) -> bool:
        """Whether the owner's index holds each card's current text with its vector."""
        cards = read_cards(self.db, [self.card_id(p) for p in paths])
        entries = all_entries(self.db, self.uid)
        for p in paths:
            stored, entry = cards.get(self.card_id(p)), entries.get(self.card_id(p))
            if stored is None or entry is None or entry.vector is None:
                return False
            if entry.text_hash != embeddable_and_hash(stored.card.title, stored.card.body)[1]:
                return False
        return True

    def edit(self, i: int, edit: int) -> tuple[float, float]:
        """Save version `edit` of note `i`: (s until synced, s from then until indexed)."""
        path = _path(i)
        # At a random point of the client's poll: saved right after the last edit was indexed,
        # each save would land at the same point of it, and the wait to be noticed with it.
        time.sleep(random.uniform(0, POLL_S))
        saved = time.perf_counter()
        (self.root / path).write_text(_note(i, edit))
        synced = _wait(f"edit {edit} synced", lambda: self.synced(path))
        indexed = _wait(f"edit {edit} indexed", lambda: self.indexed([path]))
        return synced - saved, indexed - synced


def _watched(vault: Vault, token: str, base: str, files: int, edits: int) -> list[tuple[float, float]]:
    argv = [sys.executable, str(CLIENT), str(vault.root), "--url", f"{base}/syncCards", "--token", token]
    argv += ["--source", SOURCE, "--watch", "--interval", str(POLL_S)]
    client = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert client.stdout is not None
        first = client.stdout.readline()
        if "created" not in first:
            raise RuntimeError(f"the client's first sync: {first!r} (exit {client.poll()})")
        _wait("the first sync indexed", lambda: vault.indexed([_path(i) for i in range(files)]))
        return [vault.edit(k % files, k + 1) for k in range(edits)]
    finally:
        client.terminate()
        client.wait(timeout=30)


def run(db: Any) -> list[str]:
    files, edits = sized((20, 10), (3, 1))
    base = f"http://{os.environ['CARDCHAT_FUNCTIONS_HOST']}/{db.project}/us-central1"
    uid, token = _write_token(base)
    with tempfile.TemporaryDirectory() as tmp:
        vault = Vault(db, uid, Path(tmp))
        for i in range(files):
            (vault.root / _path(i)).write_text(_note(i))
        times = _watched(vault, token, base, files, edits)
    synced, indexed = [s for s, _ in times], [x for _, x in times]
    total = [s + x for s, x in times]
    return [
        f"--watch polling every {POLL_S:.0f} s, {files} files, {edits} edits of one file: "
        f"saved → usable by the next answer p50 {statistics.median(total):4.1f} s, max {max(total):4.1f} s "
        f"(goal ≤ {GOAL_S:.0f} s)",
        f"  saved → synced (noticed, syncCards wrote the card)  p50 {statistics.median(synced):4.1f} s, "
        f"max {max(synced):4.1f} s",
        f"  synced → embedded and in the owner's index        p50 {statistics.median(indexed):4.1f} s, "
        f"max {max(indexed):4.1f} s",
    ]
