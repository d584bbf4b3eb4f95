"""The zygote of scripts/worker_fork.py: imports main.py once, then forks a Functions-emulator worker
for each launcher that connects (worker_fork.py says why and how the roles meet)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import threading
import time

from worker_fork import FORKED, registry_entry

#: How often the zygote looks whether its CLI is still there.
CLI_CHECK_S = 5.0
#: A zygote that forked nothing for this long ends (a source edit leaves the old one unused for good);
#: the next launcher starts a new one.
IDLE_EXIT_S = 600.0


def _import_main() -> dict[str, str]:
    """Imports what every worker imports before its first call; returns what that put into the
    environment, which each worker gets too (main.py sets defaults there for the server)."""
    before = dict(os.environ)
    import functions_framework._cli
    import functions_framework._http.gunicorn  # noqa: F401 (its server)
    from functions_framework import _function_registry

    module, spec = _function_registry.load_function_module(_function_registry.get_function_source(None))
    spec.loader.exec_module(module)
    return {k: v for k, v in os.environ.items() if before.get(k) != v}


def _watch_launcher(conn: socket.socket) -> None:
    """Ends this worker, gunicorn's own worker process included, once its launcher is gone."""
    try:
        while conn.recv(4096):
            pass
    finally:
        os.killpg(os.getpid(), signal.SIGKILL)


def _become_worker(conn: socket.socket, fds: list[int], request: dict, added: dict[str, str]) -> None:
    os.setpgid(0, 0)  # a group of its own: the launcher's end takes gunicorn's worker with it
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    launcher_pid = socket_peer_pid(conn)
    with open(registry_entry(launcher_pid), "w") as f:
        f.write(str(os.getpid()))
    os.chdir(request["cwd"])
    env = {**added, **request["env"]}
    os.environ.clear()
    os.environ.update(env)
    threading.Thread(target=_watch_launcher, args=(conn,), daemon=True).start()
    from functions_framework._cli import _cli

    _cli.main(args=[], prog_name="functions-framework")


def socket_peer_pid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return int.from_bytes(creds[:4], sys.byteorder)


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    size = int.from_bytes(data[:4], "big")
    while len(data) < 4 + size:
        data += conn.recv(1 << 20)
    return json.loads(data[4 : 4 + size]), fds


def _serve_one(listener: socket.socket, conn: socket.socket, added: dict[str, str]) -> None:
    request, fds = _receive(conn)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.fork() == 0:
        try:
            listener.close()
            _become_worker(conn, fds, request, added)
        finally:
            os._exit(1)
    for fd in fds:
        os.close(fd)
    conn.sendall(FORKED)


def _cli_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def serve(path: str, cli_pid: int) -> None:
    """Imports, listens at `path` and forks a worker per connection, until the CLI is gone or no
    launcher came for IDLE_EXIT_S."""
    added = _import_main()
    if threading.active_count() != 1:  # a fork would copy locks that a thread holds
        sys.exit(f"importing main.py started threads: {threading.enumerate()}; not forking")
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the workers are reaped as they end
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    staging = f"{path}.{os.getpid()}"
    listener.bind(staging)
    listener.listen(64)
    os.replace(staging, path)  # launchers connect only once it listens
    ours = os.stat(path).st_ino
    listener.settimeout(CLI_CHECK_S)
    last_fork = time.monotonic()
    try:
        while _cli_alive(cli_pid) and time.monotonic() - last_fork < IDLE_EXIT_S:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            last_fork = time.monotonic()
            conn.settimeout(None)
            try:
                _serve_one(listener, conn, added)
            except OSError as err:
                print(f"worker_zygote: a launcher's request failed: {err}", file=sys.stderr, flush=True)
            finally:
                conn.close()
    finally:
        with contextlib.suppress(OSError):  # unless a later zygote has taken the path over
            if os.stat(path).st_ino == ours:
                os.unlink(path)
