"""Firestore reads and writes of one call, counted at this process's client
as Firestore bills them: a document a lookup or a query returns is a read (a
lookup of a missing document too), a query that returns nothing is one read,
an aggregation one read per call (up to 1,000 index entries), each write or
delete of a commit a write. Reads by id on createChat's fast path
(repo/batchget.py: a channel of its own) come from its own count."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cardchat.repo import batchget


@dataclass
class Ops:
    reads: int = 0
    writes: int = 0

    def line(self) -> str:
        return f"{self.reads:5d} reads {self.writes:4d} writes"


class OpCounter:
    def __init__(self, db: Any) -> None:
        self.api = db._firestore_api
        self._lock = threading.Lock()
        self.ops = Ops()

    def _add(self, reads: int = 0, writes: int = 0) -> None:
        with self._lock:
            self.ops.reads += reads
            self.ops.writes += writes

    def _streamed(self, responses: Any, is_read: Any, at_least: int) -> Iterator[Any]:
        seen = 0
        try:
            for r in responses:
                seen += bool(is_read(r))
                yield r
        finally:
            self._add(reads=max(seen, at_least))

    @contextmanager
    def counting(self) -> Iterator[Ops]:
        """Counts every call of the block; `Ops` is filled in when the block ends."""
        api, start_by_id = self.api, batchget.documents_requested()
        originals = {
            name: getattr(api, name) for name in ("commit", "batch_get_documents", "run_query", "run_aggregation_query")
        }

        def commit(*args: Any, **kwargs: Any) -> Any:
            request = kwargs.get("request") or (args[0] if args else {})
            self._add(writes=len(request.get("writes", []) if isinstance(request, dict) else request.writes))
            return originals["commit"](*args, **kwargs)

        def stream(name: str, is_read: Any, at_least: int) -> Any:
            return lambda *a, **k: self._streamed(originals[name](*a, **k), is_read, at_least)

        api.commit = commit
        api.batch_get_documents = stream("batch_get_documents", lambda r: r.found.name or r.missing, 0)
        api.run_query = stream("run_query", lambda r: r.document.name, 1)
        api.run_aggregation_query = stream("run_aggregation_query", lambda r: r.result, 1)
        self.ops = Ops()
        try:
            yield self.ops
        finally:
            for name in originals:
                delattr(api, name)  # back to the class's methods
            self._add(reads=batchget.documents_requested() - start_by_id)
