#!/usr/bin/env python3
"""cardchat-sync: keep a folder of notes (an Obsidian vault, a Git repository of Markdown) as your
Cardchat cards.

    cardchat-sync DIR --url URL --token ccpat_... [--source NAME] [--watch] [--delete] [--dry-run]

One file, Python 3.9+, the standard library only: download it and run it, or `pipx install` its
folder. It lists the folder's Markdown and text files with the SHA-256 of their bytes; the server
(syncCards) answers which it has not got, and only those are sent. Run it again at any time, after
an interruption too: what is already synced costs nothing.

Skipped: dot-folders and dot-files (.obsidian, .git, .trash), what a `.cardchatignore` file at the
folder's top lists (one pattern a line, `#` comments, `dir/` for a folder, matched against the
path and the file's name), and files that are not .md, .markdown or .txt.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import re
import secrets
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SUFFIXES = (".md", ".markdown", ".txt")
#: The server's bounds of one request (syncCards): files, and bytes of JSON (kept under 10 MiB).
MAX_FILES = 500
MAX_BYTES = 8 * 1024 * 1024
IGNORE_FILE = ".cardchatignore"
#: (mtime_ns, size) -> sha256 per path: a watched file is hashed again only when it changed.
Seen = dict[str, tuple[tuple[int, int], str]]


class SyncError(Exception):
    """A stop with a message for the user (a bad token or URL)."""


def ignore_patterns(root: Path) -> list[str]:
    path = root / IGNORE_FILE
    if not path.is_file():
        return []
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def ignored(rel: str, patterns: list[str]) -> bool:
    """Whether `.cardchatignore`'s patterns leave `rel` out: `dir/` any folder on its way, else
    the path or the file's name."""
    parts = rel.split("/")
    folders = ["/".join(parts[: i + 1]) for i in range(len(parts) - 1)] + parts[:-1]
    for pattern in patterns:
        if pattern.endswith("/"):
            if any(fnmatch.fnmatch(f, pattern.rstrip("/")) for f in folders):
                return True
        elif fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(parts[-1], pattern):
            return True
    return False


def scan(root: Path, seen: Seen | None = None) -> dict[str, str]:
    """path -> sha256 of every file to sync; `seen` spares hashing files that did not change."""
    patterns = ignore_patterns(root)
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(SUFFIXES):
                continue
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if ignored(rel, patterns):
                continue
            stat = path.stat()
            key = (stat.st_mtime_ns, stat.st_size)
            known = seen.get(rel) if seen is not None else None
            digest = known[1] if known and known[0] == key else hashlib.sha256(path.read_bytes()).hexdigest()
            if seen is not None:
                seen[rel] = (key, digest)
            out[rel] = digest
    return out


class Server:
    def __init__(self, url: str, token: str, source: str) -> None:
        self.url, self.token, self.source = url, token, source

    def post(
        self, files: list[dict[str, Any]], delete_missing: bool = False, run: str | None = None, dry_run: bool = False
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {"source": self.source, "files": files, "delete_missing": delete_missing}
        if run:
            fields["run"] = run
        if dry_run:
            fields["dry_run"] = True
        body = json.dumps(fields).encode()
        headers = {"Content-Type": "application/json", "Authorization": "Bearer " + self.token}
        for _ in range(10):
            request = urllib.request.Request(self.url, data=body, method="POST", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=300) as answer:
                    return json.loads(answer.read())
            except urllib.error.HTTPError as e:
                if e.code == 429:
                    time.sleep(float(e.headers.get("Retry-After") or 5))
                    continue
                raise SyncError(refusal(e)) from None
            except (urllib.error.URLError, OSError, ValueError) as e:
                raise SyncError(f"cannot reach {self.url}: {getattr(e, 'reason', e)}; check --url") from None
        raise SyncError("the server kept answering 429 (too many requests); try again in a minute")


def refusal(e: urllib.error.HTTPError) -> str:
    try:
        message = json.loads(e.read() or b"{}").get("error") or ""
    except ValueError:
        message = ""
    if e.code == 401:
        return "the token was refused (unknown, revoked, or its account deleted): make one in Settings"
    if e.code == 403:
        return f"the token may not write: {message or 'make one with scope write in Settings'}"
    if e.code == 404:
        return "no sync endpoint at that URL: check --url (it ends in /syncCards)"
    return f"the server refused the request ({e.code}): {message}"


def chunks(paths: list[str], root: Path) -> Iterable[list[dict[str, Any]]]:
    """The files with their texts, in requests of at most MAX_FILES files and about MAX_BYTES."""
    batch: list[dict[str, Any]] = []
    size = 0
    for rel in paths:
        data = (root / rel).read_bytes()
        text = data.decode("utf-8", errors="replace")
        entry = {"path": rel, "sha256": hashlib.sha256(data).hexdigest(), "markdown": text}
        n = len(json.dumps(entry)) + 100
        if batch and (len(batch) >= MAX_FILES or size + n > MAX_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(entry)
        size += n
    if batch:
        yield batch


class Totals:
    def __init__(self) -> None:
        self.counts = {"created": 0, "updated": 0, "unchanged": 0, "deleted": 0}
        self.refused: list[dict[str, str]] = []
        self.deletions: list[str] = []

    def add(self, answer: dict[str, Any], unchanged: bool = True) -> None:
        for key in self.counts:
            if key != "unchanged" or unchanged:
                self.counts[key] += int(answer.get(key) or 0)
        self.refused += answer.get("refused") or []
        self.deletions += answer.get("deletions") or []

    def report(self) -> str:
        lines = [", ".join(f"{v} {k}" for k, v in self.counts.items())]
        lines += [f"refused {r.get('path')}: {r.get('reason')}" for r in self.refused]
        return "\n".join(lines)


def progress(done: int, total: int, what: str) -> None:
    if total > MAX_FILES:
        print(f"  {what} {done}/{total}", file=sys.stderr, flush=True)


def sync(server: Server, root: Path, listing: dict[str, str], delete: bool, dry_run: bool) -> Totals:
    """Hashes first, then the texts the server asks for. With `delete`, every request of the
    listing names one run, and a last request of that run deletes the cards of the files none of
    them listed: a folder of any size, and only once the whole folder was listed. A dry run lists
    (its last request asking what `delete` would delete) and sends nothing else."""
    totals = Totals()
    paths = sorted(listing)
    if delete and not paths:
        raise SyncError("the folder has no notes to sync: --delete would delete every card of the source")
    run = secrets.token_urlsafe(16) if delete and not dry_run else None
    need: list[str] = []
    starts = range(0, max(len(paths), 1), MAX_FILES)
    for start in starts:
        part = [{"path": p, "sha256": listing[p]} for p in paths[start : start + MAX_FILES]]
        answer = server.post(part, delete_missing=dry_run and delete and start == starts[-1], run=run, dry_run=dry_run)
        totals.add(answer if not dry_run else unlisted_only(answer, part, listing))
        need += answer.get("need") or []
        progress(min(start + MAX_FILES, len(paths)), len(paths), "listed")
    if dry_run:
        lines = [f"would send {p}" for p in need] + [f"would delete {p}" for p in totals.deletions]
        print("\n".join(lines) or "nothing would change")
        return totals
    sent = 0
    for batch in chunks(need, root):
        totals.add(server.post(batch))
        sent += len(batch)
        progress(sent, len(need), "sent")
    if run is not None:
        totals.add(server.post([], delete_missing=True, run=run))
    return totals


def unlisted_only(answer: dict[str, Any], part: list[dict[str, Any]], listing: dict[str, str]) -> dict[str, Any]:
    """A dry run's answer with the deletions it may not mean: a request says what it would delete
    of the files it does not list, and the folder lists more than one request does."""
    own = {f["path"] for f in part}
    deletions = [p for p in answer.get("deletions") or [] if p not in listing]
    refused = [r for r in answer.get("refused") or [] if r.get("path") in own or r.get("path") not in listing]
    return {**answer, "deleted": len(deletions), "deletions": deletions, "refused": refused}


def watch(server: Server, root: Path, delete: bool, interval: float, seen: Seen, last: dict[str, str]) -> None:
    """Poll; send only the files that changed since the last look (`last`: what the first sync
    listed, so a file saved while it ran is sent too), and, with --delete, the listing again
    when a file went."""
    while True:
        time.sleep(interval)
        now = scan(root, seen)
        changed = sorted(p for p, h in now.items() if last.get(p) != h)
        gone = [p for p in last if p not in now]
        if changed:
            totals = Totals()
            for batch in chunks(changed, root):
                totals.add(server.post(batch))
            print(totals.report(), flush=True)
        if gone and delete and now:
            print(sync(server, root, now, True, False).report(), flush=True)
        last = now


def default_source(root: Path) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", root.resolve().name).strip("-")[:64] or "notes"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardchat-sync", description="Keep a folder of notes as your Cardchat cards.")
    parser.add_argument("dir", type=Path, help="the folder (an Obsidian vault, a Git repository of Markdown)")
    parser.add_argument("--url", required=True, help="the syncCards URL (Settings shows it)")
    parser.add_argument("--token", required=True, help="an access token with scope write (ccpat_...)")
    parser.add_argument("--source", help="a name for the folder (default: its own name)")
    parser.add_argument("--watch", action="store_true", help="keep running, sending what changes")
    parser.add_argument("--delete", action="store_true", help="delete the cards of files no longer in the folder")
    parser.add_argument("--dry-run", action="store_true", help="print what would change, change nothing")
    parser.add_argument("--interval", type=float, default=2.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.dir.is_dir():
        parser.error(f"{args.dir}: no such folder")
    server = Server(args.url, args.token, args.source or default_source(args.dir))
    try:
        seen: Seen = {}
        listing = scan(args.dir, seen)
        totals = sync(server, args.dir, listing, args.delete, args.dry_run)
        print(totals.report(), flush=True)
        if args.watch and not args.dry_run:
            watch(server, args.dir, args.delete, args.interval, seen, listing)
    except SyncError as e:
        print(f"cardchat-sync: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 1 if totals.refused else 0


if __name__ == "__main__":
    sys.exit(main())
