"""A model provider faked on a real socket: an HTTP/1.1 server on 127.0.0.1
that answers each request with the next scripted reply, a server-sent-event
stream sent chunk by chunk that then ends, drops the connection or goes
silent. Unlike an in-process transport (provider_wire.py) the client's own
timeouts and connection handling run, so a hang and a dropped connection
are met as they are in production.

Imported by the tests as `from provider_server import ...`.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from typing import Literal

#: How long a silent reply holds its connection at most (a test's bound, not a pace).
HOLD_S = 60.0


@dataclass
class Reply:
    """`events` (a server-sent-event body, split on blank lines) sent one per
    chunk; `first` of them only (all when None), then: "end" (the stream's
    proper end), "drop" (the connection closed mid-body) or "hang" (nothing
    more until the server is released)."""

    events: bytes
    then: Literal["end", "drop", "hang"] = "end"
    first: int | None = None


class ProviderServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[bytes] = []
        self.release = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def close(self) -> None:
        self.release.set()
        self._listener.close()
        for t in self._threads:
            t.join(5)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(t)
            t.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            self.requests.append(_read_request(conn))
            reply = self.replies.pop(0)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
            )
            events = [e + b"\n\n" for e in reply.events.split(b"\n\n") if e.strip()]
            for event in events[: reply.first]:
                conn.sendall(b"%x\r\n%s\r\n" % (len(event), event))
            if reply.then == "end":
                conn.sendall(b"0\r\n\r\n")
            elif reply.then == "hang":
                self.release.wait(HOLD_S)
            # "drop": the socket closes here, the chunked body unfinished


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
        0,
    )
    while len(body) < length:
        body += conn.recv(65536)
    return body
