"""Writes per document, per second, as Firestore sees them: what a hot
document is made of (Firestore sustains about one write a second on one
document; the emulator enforces nothing of it, so it is counted here).

One collection-group listener per collection the product writes (every name
of common/collections.json but the write-once shards, top-level and sub-collections alike) records
each change it is told of: a document created or changed at its update time,
a document deleted at the snapshot's read time. A listener is told of the
last version only when several writes to one document land between two of
its snapshots, so the counts are a floor: a hot document is hotter, never
cooler, than printed."""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cardchat.schema.documents import CHAT_MESSAGES_STREAMING, COLLECTIONS, RETRIEVAL_INDEX_SHARDS

#: Firestore's sustained write rate for one document, and the window it is judged over.
LIMIT_PER_S = 1.0
WINDOW_S = 10.0
#: Documents that live for one answer's stream and are deleted with it: outside the goal.
STREAM_ONLY = frozenset({CHAT_MESSAGES_STREAMING})
#: Not listened to: each shard is written once, under an id of its own (repo/retrieval_index/shards.py),
#: so none can be hot; and a listener on them is sent every shard (up to 900 KB) of a 10,000-card
#: import's index versions, which ran the Firestore emulator out of direct memory.
WRITTEN_ONCE = frozenset({RETRIEVAL_INDEX_SHARDS})


@dataclass(frozen=True)
class HotDocument:
    path: str
    #: Writes in its busiest WINDOW_S seconds, over WINDOW_S: its sustained rate.
    peak_per_s: float
    writes: int

    @property
    def collection(self) -> str:
        return self.path.rsplit("/", 2)[-2]

    @property
    def stream_only(self) -> bool:
        return self.collection in STREAM_ONLY

    def line(self) -> str:
        over = "  OVER 1/s" if self.peak_per_s > LIMIT_PER_S and not self.stream_only else ""
        note = " (one answer's stream: exempt)" if self.stream_only else ""
        return (
            f"{self.peak_per_s:5.1f} writes/s over {WINDOW_S:.0f} s, {self.writes:5d} in all  {self.path}{note}{over}"
        )


class WriteRates:
    """Listens from construction to close(); writes() and hottest() may be read for any span."""

    def __init__(self, db: Any, collections: Iterable[str] = COLLECTIONS.values()) -> None:
        self._lock = threading.Lock()
        self._times: dict[str, list[float]] = defaultdict(list)
        self._primed: set[str] = set()
        self._watches = []
        for name in sorted(set(collections) - WRITTEN_ONCE):
            ready = threading.Event()
            self._watches.append(db.collection_group(name).on_snapshot(self._on(name, ready)))
            ready.wait(60)

    def _on(self, name: str, ready: threading.Event) -> Any:
        def record(docs: Any, changes: Any, read_time: Any) -> None:
            with self._lock:
                if name not in self._primed:  # the first snapshot is what was there before: no write
                    self._primed.add(name)
                    ready.set()
                    return
                for change in changes:
                    removed = change.type.name == "REMOVED"
                    when = read_time if removed or change.document.update_time is None else change.document.update_time
                    self._times[change.document.reference.path].append(when.timestamp())

        return record

    def close(self) -> None:
        for w in self._watches:
            w.unsubscribe()

    def _spans(self, start: float, end: float) -> dict[str, list[float]]:
        """Each document's write times between `start` and `end` (time.time() seconds), sorted."""
        with self._lock:
            everything = {p: sorted(ts) for p, ts in self._times.items()}
        spans = {p: ts[bisect.bisect_left(ts, start) : bisect.bisect_right(ts, end)] for p, ts in everything.items()}
        return {p: ts for p, ts in spans.items() if ts}

    def writes(self, start: float, end: float) -> dict[str, int]:
        """Writes between `start` and `end` by collection."""
        out: dict[str, int] = defaultdict(int)
        for path, times in self._spans(start, end).items():
            out[path.rsplit("/", 2)[-2]] += len(times)
        return dict(out)

    def hottest(self, start: float, end: float, n: int = 5, stream_only: bool = False) -> list[HotDocument]:
        """The `n` documents with the most writes in any WINDOW_S seconds between `start` and `end`:
        those of one answer's stream with `stream_only`, the others without."""
        docs = [HotDocument(p, _peak(ts) / WINDOW_S, len(ts)) for p, ts in self._spans(start, end).items()]
        docs = [d for d in docs if d.stream_only == stream_only]
        return sorted(docs, key=lambda d: (-d.peak_per_s, -d.writes, d.path))[:n]


def _peak(times: list[float]) -> int:
    """The most of the sorted `times` that fall in any WINDOW_S seconds."""
    best, lo = 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] > WINDOW_S:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def over_limit(docs: Iterable[HotDocument]) -> list[HotDocument]:
    """The documents, not of one answer's stream, above the sustained limit."""
    return [d for d in docs if d.peak_per_s > LIMIT_PER_S and not d.stream_only]
