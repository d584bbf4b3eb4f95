"""scripts/bench: every benchmark against the Firestore emulator, one
section each. `python -m benchmarks [name ...]` runs a subset."""

from __future__ import annotations

import importlib
import sys
import time

from google.cloud import firestore

ALL = ["cold_start", "embeddings", "retrieval", "create_chat", "streaming", "recheck", "turn_context", "offline"]
ALL += ["scrub", "pipeline", "embed_burst", "search_cards"]
ALL += ["index", "index_memory", "function_memory"]  # the retrieval index (issue 21)
ALL += ["scope"]  # whose cards a default chat reads


def main(argv: list[str]) -> int:
    names = argv or ALL
    db = firestore.Client(project="demo-cardchat-bench")
    failed = 0
    for name in names:
        print(f"\n## {name}", flush=True)
        start = time.perf_counter()
        try:
            module = importlib.import_module(f"benchmarks.bench_{name}")
            for line in module.run(db):
                print(line, flush=True)
        except Exception as e:  # one broken bench must not hide the others' figures
            failed += 1
            print(f"FAILED: {type(e).__name__}: {e}", flush=True)
        print(f"({time.perf_counter() - start:.1f}s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
