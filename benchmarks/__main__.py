"""scripts/bench: the benchmarks against the Firestore emulator, one section
each (benchmarks/sections.py). `python -m benchmarks [name ...]` runs a subset.

A section fails when it raises or prints no figure (no line with a digit):
each ends with `section NAME: ok` or `section NAME: FAILED`, which the
bench-smoke suite reads."""

from __future__ import annotations

import importlib
import re
import sys
import time
import traceback
from pathlib import Path

from google.cloud import firestore

from benchmarks.sections import BY_NAME, SECTIONS

DEFAULT = [s.name for s in SECTIONS if s.stack == "firestore" and s.default]
FIGURE = re.compile(r"\d")
HERE = Path(__file__).resolve().parent


def run_section(db: firestore.Client | None, name: str) -> bool:
    """Print one section's lines; whether it printed a figure without raising."""
    print(f"\n## {name}", flush=True)
    start = time.perf_counter()
    figures = 0
    try:
        module = importlib.import_module(f"benchmarks.bench_{name}")
        for line in module.run(db):
            print(line, flush=True)
            figures += bool(FIGURE.search(line))
        ok = figures > 0
        if not ok:
            print("FAILED: printed no figure", flush=True)
    except Exception as e:  # one broken bench must not hide the others' figures
        ok = False
        print(f"FAILED: {type(e).__name__}: {e} (at {_where(e)})", flush=True)
    print(f"({time.perf_counter() - start:.1f}s)", flush=True)
    print(f"section {name}: {'ok' if ok else 'FAILED'}", flush=True)
    return ok


def _where(e: Exception) -> str:
    """The benchmark's own line the error came through (the innermost frame is often the library's)."""
    frames = traceback.extract_tb(e.__traceback__)
    ours = [f for f in frames if Path(f.filename).resolve().parent == HERE] or frames
    return f"{Path(ours[-1].filename).name}:{ours[-1].lineno}"


def main(argv: list[str]) -> int:
    names = argv or DEFAULT
    # a section that starts scripts/dev has no emulator to talk to before it does
    own_stacks = all(BY_NAME[n].stack == "dev" for n in names)
    db = None if own_stacks else firestore.Client(project="demo-cardchat-bench")
    results = [run_section(db, name) for name in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
