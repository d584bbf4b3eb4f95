"""What the benchmarks share: the tiny size of the bench-smoke suite, and
running one benchmark that writes into Firestore on its own."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

#: Set by the bench-smoke suite (benchmarks/smoke.py): every section at a size that only
#: proves it still runs and prints its figures (a few cards, one user, one answer).
TINY_ENV = "CARDCHAT_BENCH_TINY"


def tiny() -> bool:
    return os.environ.get(TINY_ENV) == "1"


def sized(full: T, small: T) -> T:
    """`full` for a figure, `small` under the bench-smoke suite."""
    return small if tiny() else full


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
