"""scripts/worker_connections.cjs, preloaded into the firebase CLI: a call the Functions emulator
proxies to a Python worker goes on a connection of its own, so a worker closing an idle connection
can never meet a call sent on it.

The worker here is a stand-in that does what gunicorn does in that moment, every time: it answers a
first call with a kept-alive response, and closes the connection when a second call arrives on it.
A client on Node's global agent sends the second call on the kept connection and gets "socket hang
up", as the emulator did; with the preload it opens a new connection and is answered.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRELOAD = ROOT / "scripts" / "worker_connections.cjs"
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"
# Two calls in a row through the http module's global agent, as functionsRuntimeWorker.ts sends them.
CLIENT = """
const http = require('http');
const port = Number(process.argv[2]);
const call = () => new Promise((resolve) => {
  const req = http.request({ host: '127.0.0.1', port, path: '/', method: 'POST' }, (res) => {
    res.resume();
    res.on('end', () => resolve('answered'));
  });
  req.on('error', (err) => resolve(err.message));
  req.end('{}');
});
(async () => {
  const first = await call();
  await new Promise((r) => setTimeout(r, 200));
  console.log(JSON.stringify([first, await call(), http.globalAgent.keepAlive]));
})();
"""


def _worker() -> socket.socket:
    """A listening stand-in worker: the first request on a connection answered, the next closes it."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            conn.sendall(OK)
            conn.recv(65536)  # a second call on the kept connection: closed unanswered

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return server


def _calls(tmp_path: Path, preload: bool) -> list:
    cli = tmp_path / "firebase"  # the preload acts in a process whose script is the firebase CLI
    cli.write_text(CLIENT)
    with _worker() as server:
        args = ["node", *(["--require", str(PRELOAD)] if preload else []), str(cli), str(server.getsockname()[1])]
        out = subprocess.run(
            args, capture_output=True, text=True, timeout=60, check=True, env={"PATH": os.environ["PATH"]}
        )
    return json.loads(out.stdout)


def test_a_kept_connection_the_worker_closes_fails_the_call_without_the_preload(tmp_path):
    assert _calls(tmp_path, preload=False) == ["answered", "socket hang up", True]


def test_with_the_preload_every_call_has_its_own_connection_and_is_answered(tmp_path):
    assert _calls(tmp_path, preload=True) == ["answered", "answered", False]


def test_the_preload_leaves_every_other_node_process_alone(tmp_path):
    script = tmp_path / "e2e.mjs"
    script.write_text("import http from 'node:http'; console.log(http.globalAgent.keepAlive);\n")
    out = subprocess.run(["node", "--require", str(PRELOAD), str(script)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "true"
