"""Starts a Functions-emulator Python worker as a fork of a process that has already imported main.py.

The firebase CLI starts every worker as `functions-framework` in the functions' venv, and each one
spends most of its start importing firebase_functions, Flask and main.py before it serves a call. A
test run starts hundreds of them. scripts/worker_fork.cjs, preloaded into the CLI, runs this file
instead, in three roles:

launcher  (what the CLI starts; `python -S`, so it starts in milliseconds) hands its environment,
          working folder and standard streams to the stack's zygote over a Unix socket, then stays
          until the worker ends. It is the process the CLI and the tests see: ending it, even with
          SIGKILL, ends its worker. Where no zygote can serve, it runs functions-framework itself.
zygote    one per CLI process, environment and source state: imports functions_framework and
          main.py once, then forks a worker per launcher. Started by the first launcher that finds
          none; ends with its CLI. Source files that change make a new fingerprint, so a new zygote.
worker    the fork: takes the launcher's streams and environment (plus what importing main.py put
          into the environment), and runs functions-framework's own command line, which executes
          main.py again over the modules already loaded.

The environment a zygote imported under is the workers' environment but for the keys that name the
function (PER_WORKER): anything main.py reads from the environment at import is what it would read.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

#: Keys the emulator sets per worker: the zygote's import must not depend on them.
PER_WORKER = {"FUNCTION_TARGET", "K_SERVICE", "PORT", "FUNCTION_SIGNATURE_TYPE", "_", "SHLVL", "OLDPWD"}
SHELLS = {"sh", "dash", "bash"}
SKIP_DIRS = {"venv", "__pycache__", "node_modules", "tests"}
START_TIMEOUT_S = 120
#: What the zygote sends a launcher once it has forked its worker.
FORKED = b"+"


def fork_dir() -> str:
    """Sockets, the zygotes' logs and the launcher → worker registry, per user."""
    return os.environ.get("CARDCHAT_WORKER_FORK_DIR") or os.path.join(
        tempfile.gettempdir(), f"cardchat-worker-fork-{os.getuid()}"
    )


def registry_entry(launcher_pid: int) -> str:
    """Where a launcher's worker writes its process group (= its pid), for tests that look a worker up
    by the environment the CLI gave it: only the launcher shows that environment in /proc."""
    return os.path.join(fork_dir(), "workers", str(launcher_pid))


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _cli_pid() -> int:
    """The process that started this launcher through a shell: the firebase CLI."""
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/comm") as f:
            if f.read().strip() not in SHELLS:
                return pid
        pid = _parent_of(pid)
    return os.getppid()


def _source_state(cwd: str) -> list[tuple[str, int, int]]:
    state = []
    for top, dirs, files in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py") or name.endswith(".json"):
                st = os.stat(os.path.join(top, name))
                state.append((os.path.relpath(os.path.join(top, name), cwd), st.st_mtime_ns, st.st_size))
    return state


def _fingerprint(env: dict[str, str], cwd: str, cli_pid: int) -> str:
    shared = sorted((k, v) for k, v in env.items() if k not in PER_WORKER)
    blob = json.dumps([shared, cwd, sys.executable, cli_pid, _source_state(cwd)])
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _connect(path: str) -> socket.socket | None:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return s
    except OSError:
        s.close()
        return None


def _start_zygote(path: str, env: dict[str, str], cli_pid: int) -> socket.socket | None:
    """Starts a zygote at `path` and connects to it, or None when it could not start."""
    zygote_env = {k: v for k, v in env.items() if k not in PER_WORKER}
    with open(path + ".log", "ab") as log:
        zygote = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--zygote", path, str(cli_pid)],
            env=zygote_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and zygote.poll() is None:
        if (conn := _connect(path)) is not None:
            return conn
        time.sleep(0.05)
    return None


def _zygote_for(env: dict[str, str], cwd: str) -> socket.socket | None:
    cli_pid = _cli_pid()
    os.makedirs(os.path.join(fork_dir(), "workers"), exist_ok=True)
    path = os.path.join(fork_dir(), _fingerprint(env, cwd, cli_pid) + ".sock")
    if (conn := _connect(path)) is not None:
        return conn
    with open(path + ".lock", "w") as lock:  # one launcher starts it; the others wait, then connect
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _connect(path) or _start_zygote(path, env, cli_pid)


def launch() -> None:
    """The launcher: a worker forked by the zygote, or functions-framework itself where none serves."""
    env, cwd = dict(os.environ), os.getcwd()
    conn = None if os.environ.get("CARDCHAT_WORKER_FORK") == "0" else _zygote_for(env, cwd)
    if conn is None:
        os.execvp("functions-framework", ["functions-framework"])
    with contextlib.suppress(OSError):  # an entry left by an earlier process of this pid
        os.unlink(registry_entry(os.getpid()))
    request = json.dumps({"env": env, "cwd": cwd}).encode()
    socket.send_fds(conn, [len(request).to_bytes(4, "big") + request], [0, 1, 2])
    if conn.recv(len(FORKED)) != FORKED:  # a zygote that was ending as this launcher came
        os.execvp("functions-framework", ["functions-framework"])
    while conn.recv(4096):  # the worker never writes: this returns when it ends
        pass
    with contextlib.suppress(OSError):
        os.unlink(registry_entry(os.getpid()))
    sys.exit(0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--zygote"]:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from worker_zygote import serve

        serve(sys.argv[2], int(sys.argv[3]))
    else:
        launch()
