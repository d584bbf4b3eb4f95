"""What the benchmarks share: the tiny size of the bench-smoke suite,
running one benchmark that writes into Firestore on its own, and measuring a
call's peak memory in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

#: Set by the bench-smoke suite (scripts/bench-smoke): every section at a size that only
#: proves it still runs and prints its figures (a few cards, one user, one answer).
TINY_ENV = "CARDCHAT_BENCH_TINY"


def tiny() -> bool:
    return os.environ.get(TINY_ENV) == "1"


def sized(full: T, small: T) -> T:
    """`full` for a figure, `small` under the bench-smoke suite."""
    return small if tiny() else full


def run_against_emulator(run: Callable[[Any], Iterable[str]]) -> None:
    """`python -m benchmarks.bench_<name>`: run one benchmark against the emulator
    named by FIRESTORE_EMULATOR_HOST and print its lines, refusing to touch a
    real project."""
    from google.cloud import firestore

    if not os.environ.get("FIRESTORE_EMULATOR_HOST"):
        raise SystemExit("set FIRESTORE_EMULATOR_HOST: this benchmark writes into the emulator only")
    client = firestore.Client(project=os.environ.get("GCLOUD_PROJECT", "demo-cardchat"))
    for line in run(client):
        print(line)


#: The repository's root: a fresh process runs the benchmarks package from here.
ROOT = Path(__file__).resolve().parent.parent


def peak_rss_mib() -> float:
    """This process's peak resident memory (VmHWM): what a function's memory setting must hold."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def in_fresh_process(module: str, args: list[str], project: str, code: Path) -> dict[str, Any]:
    """`python -m module *args` in a fresh process importing the functions' code from `code`
    (a baseline's, to compare before and after in one run); its last line of output, as JSON."""
    out = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": f"{code}:{ROOT}", "GCLOUD_PROJECT": project},
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise RuntimeError(f"{' '.join(args)} in {code}: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


@contextmanager
def triggers_paused() -> Iterator[None]:
    """Background triggers off meanwhile, as scripts/seed does: the cards written need no embedCard
    (the Functions emulator delivers no Firestore event; its hub's switch, which emulators:exec names)."""
    hub = f"http://{os.environ['FIREBASE_EMULATOR_HUB']}/functions"
    # Resuming re-discovers the functions in a Python process (FUNCTIONS_DISCOVERY_TIMEOUT, scripts/lib.sh):
    # on a loaded machine that took over 10 s.
    urllib.request.urlopen(urllib.request.Request(f"{hub}/disableBackgroundTriggers", method="PUT"), timeout=90)
    try:
        yield
    finally:
        urllib.request.urlopen(urllib.request.Request(f"{hub}/enableBackgroundTriggers", method="PUT"), timeout=90)
