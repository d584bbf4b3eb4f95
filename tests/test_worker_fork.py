"""scripts/worker_fork.py and worker_fork.cjs: the Functions emulator's Python workers start as forks
of one process that imported main.py, serve the function the CLI named, end with their launcher, and
a changed source starts a new zygote.

The workers here are started as the CLI starts them (`sh -c '. venv/bin/activate && …'`, the
environment it gives each), from a functions folder of the test's own whose main.py says which
process imported it and which one serves."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

Popen = subprocess.Popen[bytes]
ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = ROOT / "scripts" / "worker_fork.py"
PRELOAD = ROOT / "scripts" / "worker_fork.cjs"
MAIN_PY = """
import os
import functions_framework

os.environ.setdefault("IMPORTED_BY", str(os.getpid()))


def _who(request):
    return {"target": os.environ["FUNCTION_TARGET"], "pid": os.getpid(), "imported_by": os.environ["IMPORTED_BY"]}


@functions_framework.http
def first(request):
    return _who(request)


@functions_framework.http
def second(request):
    return _who(request)
"""


@pytest.fixture
def functions_dir(tmp_path: Path) -> Path:
    d = tmp_path / "functions"
    d.mkdir()
    (d / "main.py").write_text(MAIN_PY)
    (d / "venv").symlink_to(ROOT / "functions" / "venv")
    return d


@pytest.fixture
def workers(functions_dir: Path, tmp_path: Path) -> Iterator[list[Popen]]:
    started: list[Popen] = []
    yield started
    for proc in started:  # each in a group of its own: the shell, the launcher, the zygote it started
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(functions_dir: Path, tmp_path: Path, target: str, *, fork: bool = True) -> tuple[Popen, int]:
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("FUNCTION_", "K_"))},
        "FUNCTION_TARGET": target,
        "K_SERVICE": target,
        "FUNCTION_SIGNATURE_TYPE": "http",
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "CARDCHAT_WORKER_FORK_DIR": str(tmp_path / "fork"),
        "CARDCHAT_WORKER_FORK": "1" if fork else "0",
    }
    env.pop("IMPORTED_BY", None)
    # As firebase-tools' runWithVirtualEnv starts it, once worker_fork.cjs has swapped the command.
    command = f'. "{functions_dir}/venv/bin/activate" && python -S "{LAUNCHER}"'
    proc = subprocess.Popen(["sh", "-c", command], cwd=functions_dir, env=env, start_new_session=True)
    return proc, port


def _ask(port: int, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/", data=b"{}", method="POST")
            with urllib.request.urlopen(req, timeout=5) as r:
                return json.loads(r.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _closed(port: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return True
        time.sleep(0.1)
    return False


def test_workers_are_forks_of_one_import_and_serve_the_function_they_were_started_for(functions_dir, tmp_path, workers):
    started = [_start(functions_dir, tmp_path, target) for target in ("first", "second", "first")]
    workers += [proc for proc, _ in started]
    answers = [_ask(port) for _, port in started]
    assert [a["target"] for a in answers] == ["first", "second", "first"]
    # One process imported main.py; none of the serving processes is it, and each serves alone.
    assert len({a["imported_by"] for a in answers}) == 1
    assert not {a["imported_by"] for a in answers} & {str(a["pid"]) for a in answers}
    assert len({a["pid"] for a in answers}) == 3


def test_without_the_fork_each_worker_imports_main_itself(functions_dir, tmp_path, workers):
    started = [_start(functions_dir, tmp_path, "first", fork=False) for _ in range(2)]
    workers += [proc for proc, _ in started]
    answers = [_ask(port) for _, port in started]
    assert len({a["imported_by"] for a in answers}) == 2


def test_a_worker_ends_with_its_launcher_even_when_it_is_killed(functions_dir, tmp_path, workers):
    (proc, port), (other, other_port) = (_start(functions_dir, tmp_path, t) for t in ("first", "second"))
    workers += [proc, other]
    _ask(port), _ask(other_port)
    launcher = next(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _is_launcher_of(p, proc.pid))
    os.kill(launcher, signal.SIGKILL)
    assert _closed(port), "the worker still answers after its launcher was killed"
    assert _ask(other_port)["target"] == "second"  # the others serve on


def _is_launcher_of(proc: Path, shell_pid: int) -> bool:
    """Whether `proc` is the launcher the shell `shell_pid` runs (its child, or the shell itself
    where the shell execs its last command); never the zygote that launcher may have started."""
    try:
        ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        cmdline = (proc / "cmdline").read_bytes()
    except (OSError, ValueError):
        return False
    ours = shell_pid in (ppid, int(proc.name))
    return ours and cmdline.startswith(b"python") and b"--zygote" not in cmdline


def test_a_changed_source_gets_a_new_zygote(functions_dir, tmp_path, workers):
    proc, port = _start(functions_dir, tmp_path, "first")
    workers.append(proc)
    before = _ask(port)["imported_by"]
    main = functions_dir / "main.py"
    main.write_text(main.read_text() + "\n# changed\n")
    os.utime(main, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
    proc, port = _start(functions_dir, tmp_path, "first")
    workers.append(proc)
    assert _ask(port)["imported_by"] != before


def test_the_cli_preload_starts_workers_through_the_launcher(tmp_path):
    tools = ROOT / "node_modules" / "firebase-tools" / "lib" / "functions" / "python.js"
    script = (
        f"const py = require({json.dumps(str(tools))});"
        f"const child = py.runWithVirtualEnv(['functions-framework'], {json.dumps(str(tmp_path))}, {{}});"
        "let out = ''; child.stdout.on('data', (d) => { out += d; });"
        "child.on('exit', () => process.stdout.write(out));"
    )
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "activate").write_text(f'PATH="{venv}:$PATH"\n')
    (venv / "python").write_text('#!/bin/sh\necho "$@"\n')
    (venv / "python").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "NODE_OPTIONS"}
    out = subprocess.run(
        ["node", "--require", str(PRELOAD), "-e", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["-S", str(LAUNCHER)]
