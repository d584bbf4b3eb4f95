"""scripts/worker_ports.cjs, preloaded into the firebase CLI: a port handed out for a Python worker
is handed out once, by one CLI or by several at once.

The workers are started through firebase-tools' own startPython (tests/worker_ports_probe.cjs),
with the emulator's random jitter seeded, so every run draws the same starting ports: the seed
below draws one starting port more than once among the workers, which is how two workers of one
stack meet on a port. Nothing binds the ports meanwhile, as a worker still importing main.py does not.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRELOAD = ROOT / "scripts" / "worker_ports.cjs"
PROBE = ROOT / "tests" / "worker_ports_probe.cjs"
# The CLI scripts/lib.sh picks: firebase-tools 15, or 14 where no JDK >= 21 is found (when installed).
TOOLS = [
    d
    for d in (
        ROOT / "node_modules" / "firebase-tools",
        ROOT / "tools" / "firebase-java17" / "node_modules" / "firebase-tools",
    )
    if d.is_dir()
]
# Among 60 workers, seed 6 draws one jitter twice and another three times (unseeded, a repeat is
# likely from about 30 workers on)
SEED, WORKERS = 6, 60


def _version(tools: Path) -> str:
    return "firebase-tools-" + json.loads((tools / "package.json").read_text())["version"]


def _env(registry: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NODE_OPTIONS"}  # scripts/test preloads it for the CLI
    env["CARDCHAT_PORT_REGISTRY"] = str(registry)
    return env


def _start(
    tools: Path, registry: Path, *, preload: bool, mode: str = "one-by-one", workers: int = WORKERS
) -> subprocess.Popen[str]:
    require = ["--require", str(PRELOAD)] if preload else []
    command = ["node", *require, str(PROBE), str(tools), str(SEED), str(workers), mode]
    return subprocess.Popen(command, env=_env(registry), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _ports(*probes: subprocess.Popen[str]) -> list[int]:
    ports: list[int] = []
    for probe in probes:
        out, err = probe.communicate(timeout=600)
        assert probe.returncode == 0, err
        ports += json.loads(out)
    return ports


def _handed_out_twice(ports: list[int]) -> list[int]:
    return sorted(port for port, n in Counter(ports).items() if n > 1)


@pytest.mark.parametrize("tools", TOOLS, ids=_version)
def test_workers_started_one_after_another_never_share_a_port(tools: Path, tmp_path: Path) -> None:
    without = _ports(_start(tools, tmp_path / "unused", preload=False))
    assert _handed_out_twice(without), "the seed should make the emulator hand out a port twice"
    assert _handed_out_twice(_ports(_start(tools, tmp_path / "registry", preload=True))) == []


@pytest.mark.parametrize("tools", TOOLS, ids=_version)
def test_workers_started_together_never_share_a_port(tools: Path, tmp_path: Path) -> None:
    # Unwrapped, concurrent portfinder calls share its list of hosts to try, and can fail outright
    # ("No open ports found") as well as collide: here every call waits for the one before.
    assert _handed_out_twice(_ports(_start(tools, tmp_path, preload=True, mode="together"))) == []


@pytest.mark.parametrize("tools", TOOLS, ids=_version)
def test_two_stacks_starting_workers_at_once_never_share_a_port(tools: Path, tmp_path: Path) -> None:
    # Two CLIs seeded alike draw the same starting ports: only the shared registry keeps them apart.
    alone = [_start(tools, tmp_path / f"own-{n}", preload=True, workers=20) for n in range(2)]
    assert _handed_out_twice(_ports(*alone))
    shared = [_start(tools, tmp_path / "shared", preload=True, workers=20) for _ in range(2)]
    assert _handed_out_twice(_ports(*shared)) == []


CLAIMS = """
const { claim, WINDOW_MS } = require(process.argv[1]);
const edge = 1000 * WINDOW_MS;  // the first instant of a minute
const at = (ms) => claim(40000, edge + ms);
console.log(JSON.stringify([at(-1), at(-1 + WINDOW_MS - 1), at(0), at(3 * WINDOW_MS), at(-1 + 4 * WINDOW_MS)]));
"""


def test_a_port_claimed_is_refused_for_a_minute_then_free_again(tmp_path: Path) -> None:
    # Claimed in the last millisecond of a minute, refused in the next one (the neighbouring
    # minute's file, not the same file, says so), free three minutes on, refused right after.
    out = subprocess.run(
        ["node", "-e", CLAIMS, str(PRELOAD)], env=_env(tmp_path), capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [True, False, False, True, False]
