"""The Firestore emulator's JVM: CPU it burns for one fixed workload, with the JVM's default tiered
compiler (C1 then C2), with C1 only (`-XX:TieredStopAtLevel=1`), and with C1 only and the serial
collector (`-XX:+UseSerialGC`; both are what scripts/lib.sh sets for every stack). A test run keeps
both cores busy, so the emulator's CPU is time taken from the tests. The settings take turns, each on
an emulator of its own, so all meet the same load.

    scripts/bench emulator_jvm
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.common import sized

SETTINGS = {
    "tiered (default)": "",
    "C1 only": "-XX:TieredStopAtLevel=1",
    "C1 only, serial collector (as set)": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
}
TICKS = os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def _start(options: str) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    java = Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / "java"
    env = {**os.environ, "JAVA_TOOL_OPTIONS": options}
    jar = os.environ["FIRESTORE_EMULATOR_BINARY_PATH"]
    proc = subprocess.Popen(
        [str(java), "-jar", jar, "--host=127.0.0.1", f"--port={port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the Firestore emulator did not answer on {port} within 120 s")


def _workload(port: int, docs: int, rounds: int) -> None:
    from google.cloud import firestore
    from google.cloud.firestore_v1.base_query import FieldFilter

    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"  # read once, by the client made here
    db = firestore.Client(project="demo-cardchat-jvm")
    cards = db.collection("cards")
    for r in range(rounds):
        batch = db.batch()
        for i in range(docs):
            batch.set(cards.document(f"c{i}"), {"i": i, "round": r, "body": "card text " * 20})
            if i % 400 == 399:
                batch.commit()
                batch = db.batch()
        batch.commit()
        for i in range(0, docs, 3):
            cards.document(f"c{i}").get()
        list(cards.where(filter=FieldFilter("i", ">", docs // 10)).stream())


def _one(options: str, docs: int, rounds: int) -> tuple[float, float]:
    """(the JVM's CPU seconds from its start to the workload's end, the workload's wall seconds)"""
    host = os.environ.get("FIRESTORE_EMULATOR_HOST")
    proc, port = _start(options)
    try:
        start = time.perf_counter()
        _workload(port, docs, rounds)
        return _cpu_s(proc.pid), time.perf_counter() - start
    finally:
        proc.kill()
        proc.wait()
        if host is None:
            os.environ.pop("FIRESTORE_EMULATOR_HOST", None)
        else:
            os.environ["FIRESTORE_EMULATOR_HOST"] = host


def run(_db: Any = None) -> list[str]:
    docs, rounds, repeats = sized(1500, 100), sized(6, 1), sized(3, 1)
    seen: dict[str, list[tuple[float, float]]] = {name: [] for name in SETTINGS}
    for _ in range(repeats):
        for name, options in SETTINGS.items():
            seen[name].append(_one(options, docs, rounds))
    lines = [f"{rounds} rounds of {docs} writes, {docs // 3} reads and a query, {repeats} emulators per setting:"]
    for name, runs in seen.items():
        cpu = statistics.median(c for c, _ in runs)
        wall = statistics.median(w for _, w in runs)
        lines.append(f"  {name}: the JVM's CPU median {cpu:.1f} s, the workload's wall median {wall:.1f} s")
    return lines
