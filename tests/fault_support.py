"""What the fault tests share: the state a generator leaves when it dies
mid-answer, a count of the RPCs a Firestore client sends, and a Firestore
emulator of a test's own that it stops and starts again.

Imported by the tests as `from fault_support import ...` (pytest puts tests/
on sys.path).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import socket
import subprocess
import time
import urllib.request
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from google.cloud import firestore

from cardchat.repo import messages as repo
from cardchat.schema.messages import StreamChunk

ROOT = Path(__file__).resolve().parent.parent

#: The Firestore API calls that read or write documents (what Firestore bills).
BILLED_RPCS = (
    "run_query",
    "run_aggregation_query",
    "batch_get_documents",
    "get_document",
    "list_documents",
    "commit",
    "batch_write",
    "begin_transaction",
)


def die_mid_answer(db: firestore.Client, message_id: str, lease_expires: datetime, texts: list[str]) -> str:
    """What a generator killed mid-answer leaves, written through the store
    adapter as the engine writes it: the message taken by a run that holds
    a lease until `lease_expires`, and its first chunks. Returns the run id."""
    run_id = "dead-run"
    msg = repo.take_run(db, message_id, run_id, lease_expires)
    assert msg is not None, "the answer was not ready to be taken"
    for i, text in enumerate(texts):
        chunk = StreamChunk(chat=msg.chat, message=message_id, message_index=msg.message_index, index=i, content=text)
        repo.write_chunk(db, message_id, run_id, chunk)
    return run_id


class RpcCount:
    """Counts the calls `db` makes to the Firestore API while it is in effect
    (the client's generated API object, and the one repo/batchget.py streams
    reads by id on, wrapped per method), and the documents those calls hand
    over, by method (`documents`): a query that streams cards and drops them
    after is counted as what it read, not as what it kept."""

    def __init__(self, db: firestore.Client) -> None:
        from cardchat.repo import batchget

        self.apis: list[Any] = [db._firestore_api]
        bulk = batchget._bulk_api(db) if not batchget._missing_attributes(db) else None
        if bulk is not None and bulk is not db._firestore_api:
            self.apis.append(bulk)
        self.api: Any = self.apis[0]
        self.calls: Counter[str] = Counter()
        self.documents: Counter[str] = Counter()
        self._saved: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> RpcCount:
        for api in self.apis:
            for name in BILLED_RPCS:
                original = getattr(api, name)
                self._saved.append((api, name, original))

                def counted(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
                    self.calls[_name] += 1
                    answer = _original(*args, **kwargs)
                    if _name == "get_document":
                        self.documents[_name] += 1
                        return answer
                    if _name in ("run_query", "batch_get_documents"):
                        return _Documents(answer, self.documents, _name)
                    return answer

                setattr(api, name, counted)
        return self

    def __exit__(self, *exc: object) -> None:
        for api, name, original in self._saved:
            setattr(api, name, original)


class _Documents:
    """A streamed answer, passed on response by response, counting those that carry a document."""

    def __init__(self, stream: Any, count: Counter[str], name: str) -> None:
        self._stream, self._count, self._name = iter(stream), count, name
        self._whole = stream

    def __iter__(self) -> _Documents:
        return self

    def __next__(self) -> Any:
        response = next(self._stream)
        pb = type(response).pb(response)
        if pb.HasField("document") if hasattr(pb, "document") else pb.WhichOneof("result") == "found":
            self._count[self._name] += 1
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._whole, name)


#: How long a private emulator may take to start on a loaded 2-core machine (a bound, not a pace).
START_BOUND_S = 120.0


class PrivateFirestore:
    """A Firestore emulator of the test's own, on a free port: stopped the hard
    way (SIGKILL) and started again with the data it held when `export` ran,
    as a store that went away mid-answer and came back. The JVM is the one the
    firebase CLI runs (scripts/lib.sh exports where it is)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.host = f"127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, seed: Path | None = None, bound_s: float = START_BOUND_S) -> None:
        """Start it and wait until it answers; a port still held by the killed
        one (the process exits at once) is tried again within `bound_s`."""
        give_up = time.monotonic() + bound_s
        while True:
            self.starts += 1
            log = (self.workdir / f"emulator-{self.starts}.log").open("wb")
            cmd = [_java(), "-jar", _jar(), "--host", "127.0.0.1", "--port", str(self.port)]
            if seed is not None:
                cmd.append(f"--seed_from_export={seed}")
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            while time.monotonic() < give_up and self.proc.poll() is None:
                if _answers(self.host):
                    return
                time.sleep(0.2)
            if time.monotonic() >= give_up:
                self.kill()
                raise AssertionError(f"the private Firestore emulator did not start in {bound_s:.0f} s")
            time.sleep(1)  # it exited: the port may not be free yet

    def export(self, project: str) -> Path:
        """Its data now, as the metadata file `start(seed=...)` reads."""
        out = self.workdir / f"export-{self.starts}"
        out.mkdir()
        body = json.dumps({"database": f"projects/{project}/databases/(default)", "export_directory": str(out)})
        req = urllib.request.Request(
            f"http://{self.host}/emulator/v1/projects/{project}:export",
            data=body.encode(),
            method="POST",
            headers={"content-type": "application/json"},
        )
        urllib.request.urlopen(req, timeout=60).read()
        return next(out.glob("*/*.overall_export_metadata"))

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


def _jar() -> str:
    for name in ("FIRESTORE_EMULATOR_BINARY_PATH", "FIRESTORE_EMULATOR_JAR_REAL"):
        path = os.environ.get(name)
        if path and Path(path).exists():
            return path
    raise AssertionError("no Firestore emulator jar: run under scripts/test (scripts/lib.sh says where it is)")


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else "java"


def _answers(host: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}/", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


@functools.cache
def _worker_fork() -> Any:
    """scripts/worker_fork.py, which knows where a launcher's worker is recorded."""
    spec = importlib.util.spec_from_file_location("worker_fork", ROOT / "scripts" / "worker_fork.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _group(pgid: int) -> list[int]:
    members = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and int((proc / "stat").read_text().rsplit(")", 1)[1].split()[2]) == pgid:
                members.append(int(proc.name))
        except (OSError, ValueError):
            continue
    return members


def stack_workers(function: str, project: str | None = None) -> list[int]:
    """The pids of the Functions emulator's workers serving `function` in this
    test run's stack (the one whose Firestore is FIRESTORE_EMULATOR_HOST, and
    `project` where given): never another stack's on the same machine. A worker
    started through scripts/worker_fork.py is the fork its launcher names: the
    launcher alone shows the environment the CLI gave it."""
    want = {
        f"FUNCTION_TARGET={function}".encode(),
        f"FIRESTORE_EMULATOR_HOST={os.environ['FIRESTORE_EMULATOR_HOST']}".encode(),
    } | ({f"GCLOUD_PROJECT={project}".encode()} if project else set())
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            env = set((proc / "environ").read_bytes().split(b"\0"))
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue  # gone, or not ours to read
        if not (want <= env and b"python" in cmdline):
            continue
        if b"worker_fork.py" not in cmdline:
            found.append(int(proc.name))
            continue
        try:
            found += _group(int(Path(_worker_fork().registry_entry(int(proc.name))).read_text()))
        except (OSError, ValueError):
            continue  # its worker is still starting, or has ended
    return found
