"""Finds references to the project's issue tracker in tracked files: code, tests and docs speak
of the product, and the tracker is not in the repository, so "see issue N" tells a reader nothing.
Write the reason instead; git's history keeps which change came from where.

A reference is the word issue or issues followed by a number, with or without `#`, also when a
comment wraps between the two. Other projects' bug numbers are spelt as they are elsewhere
(`firebase-tools#1234`, a link to their tracker) and are not flagged. Prints each hit as
path:line: text and exits 1 if there is any.

    python3 scripts/tracker_refs.py [PATH ...]   # default: every file git tracks
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Ends a line in "issue" so that the next line's number is looked at too.
_WORD = r"\bissues?"
_REFERENCE = re.compile(_WORD + r"[ \t]*#?[0-9]+", re.IGNORECASE)
_WRAPPED_WORD = re.compile(_WORD + r"[ \t]*#?$", re.IGNORECASE)
# What a wrapped comment's next line may start with before its text: markers of comments and lists.
_CONTINUATION = re.compile(r"^[ \t]*(?:#|//|/\*|\*|--|>|-)*[ \t]*#?[0-9]+")


def hits_in(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every tracker reference in one file's text."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        wrapped = i + 1 < len(lines) and _WRAPPED_WORD.search(line) and _CONTINUATION.match(lines[i + 1])
        if _REFERENCE.search(line) or wrapped:
            found.append((i + 1, line.strip()))
    return found


def tracked_files(root: Path) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True).stdout
    return [root / name for name in out.decode().split("\0") if name]


def scan(paths: list[Path], root: Path = ROOT) -> list[str]:
    """path:line: text of every reference in the given files (binary files are skipped)."""
    report = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        name = path.relative_to(root) if path.is_relative_to(root) else path
        report += [f"{name}:{n}: {line}" for n, line in hits_in(text)]
    return report


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or tracked_files(ROOT)
    report = scan(paths)
    if report:
        print("\n".join(report))
        print(f"{len(report)} reference(s) to the issue tracker: write the reason instead", file=sys.stderr)
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
