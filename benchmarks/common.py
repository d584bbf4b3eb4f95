"""What the benchmarks that write into Firestore share when run on their own."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any


def run_against_emulator(run: Callable[[Any], Iterable[str]]) -> None:
    """`python -m benchmarks.bench_x`: run one benchmark against the emulator
    named by FIRESTORE_EMULATOR_HOST and print its lines, refusing to touch a
    real project."""
    from google.cloud import firestore

    if not os.environ.get("FIRESTORE_EMULATOR_HOST"):
        raise SystemExit("set FIRESTORE_EMULATOR_HOST: this benchmark writes into the emulator only")
    client = firestore.Client(project=os.environ.get("GCLOUD_PROJECT", "demo-cardchat"))
    for line in run(client):
        print(line)
