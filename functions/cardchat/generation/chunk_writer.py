"""Coalescing of model deltas into a few chunk writes.

One Firestore write per token makes every listener re-sync the whole growing
set of chunk documents (n² work in the browser) and costs one write each. The
coalescer groups deltas: the first delta goes out at once (time to first token
is what a reader notices), then at most one flush per `interval`, or earlier
when the pending text outgrows `max_chars`.

`Coalescer` and `ChunkPlan` (which adds lease renewals) are pure and
clock-injected. `StreamWriter` runs the plan on a worker thread so that a
slow Firestore write never stalls the provider's stream; the single thread
keeps chunk order, and `close()` hands over every pending delta before it
returns.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_INTERVAL = 0.22  # seconds: under 5 chunk writes per second, first and last flush included
DEFAULT_MAX_CHARS = 2_000


class Coalescer:
    def __init__(
        self,
        interval: float = DEFAULT_INTERVAL,
        max_chars: int = DEFAULT_MAX_CHARS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self.max_chars = max_chars
        self._clock = clock
        self._pending: list[str] = []
        self._pending_len = 0
        self._last_flush: float | None = None
        self.flushes = 0

    @property
    def pending(self) -> int:
        return self._pending_len

    def add(self, delta: str) -> None:
        if delta:
            self._pending.append(delta)
            self._pending_len += len(delta)

    def seconds_until_due(self) -> float | None:
        """None when nothing is pending; 0 when a flush is due now."""
        if not self._pending_len:
            return None
        if self._last_flush is None or self._pending_len >= self.max_chars:
            return 0.0
        left = self._last_flush + self.interval - self._clock()
        return left if left > 1e-9 else 0.0  # float noise must not postpone a due flush

    def take_due(self) -> str | None:
        """The pending text if a flush is due now, else None."""
        if self.seconds_until_due() != 0.0:
            return None
        return self._take()

    def drain(self) -> str | None:
        """Everything pending, due or not (end of stream)."""
        return self._take() if self._pending_len else None

    def _take(self) -> str:
        text = "".join(self._pending)
        self._pending.clear()
        self._pending_len = 0
        self._last_flush = self._clock()
        self.flushes += 1
        return text


class WriterFailed(Exception):
    """The chunk writer stopped on an error; `__cause__` is that error."""


@dataclass
class _End:
    flush: bool


@dataclass(frozen=True)
class Chunk:
    """Write this text as the next chunk; `renew` lets the lease renewal ride on it."""

    text: str
    renew: bool


@dataclass(frozen=True)
class Renewal:
    """Renew the lease on its own: no text came to carry it."""


class ChunkPlan:
    """What the writer does next, decided on an injected clock: when text goes
    out (the Coalescer) and when the lease renewal rides on it or goes alone.

    A due renewal first waits one flush interval for a chunk to ride on; only
    a model that stays silent longer gets a write of its own. Pure, so the
    policy is tested on a fake clock; StreamWriter only runs it on a thread.
    """

    def __init__(self, renew_every: float, coalescer: Coalescer, clock: Callable[[], float]) -> None:
        self._renew_every = renew_every
        self._coalescer = coalescer
        self._clock = clock
        self._next_renew = clock() + renew_every

    def add(self, delta: str) -> None:
        self._coalescer.add(delta)

    def _standalone_renewal_at(self) -> float:
        return self._next_renew + self._coalescer.interval

    def seconds_until_next(self) -> float:
        """How long the writer may sleep before next() could have work."""
        due = self._coalescer.seconds_until_due()
        renew = max(0.0, self._standalone_renewal_at() - self._clock())
        return renew if due is None else min(due, renew)

    def next(self) -> Chunk | Renewal | None:
        text = self._coalescer.take_due()
        if not text and self._clock() >= self._standalone_renewal_at():
            # No chunk came to carry the renewal: carry it on the pending text
            # if there is any, else renew on its own.
            text = self._coalescer.drain()
            if not text:
                self._next_renew = self._clock() + self._renew_every
                return Renewal()
        return self._chunk(text) if text else None

    def drain(self) -> Chunk | None:
        """Everything pending, due or not (end of stream)."""
        text = self._coalescer.drain()
        return self._chunk(text) if text else None

    def _chunk(self, text: str) -> Chunk:
        renew = self._clock() >= self._next_renew
        if renew:
            self._next_renew = self._clock() + self._renew_every
        return Chunk(text, renew)


class StreamWriter:
    """Feeds deltas through a ChunkPlan to `write_chunk(index, text, renew)` on
    one worker thread, and calls `renew_lease()` when the plan says the
    lease needs a renewal of its own (a model thinking silently for long).
    """

    def __init__(
        self,
        write_chunk: Callable[[int, str, bool], None],
        renew_lease: Callable[[], None],
        *,
        renew_every: float,
        interval: float = DEFAULT_INTERVAL,
        max_chars: int = DEFAULT_MAX_CHARS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write_chunk = write_chunk
        self._renew_lease = renew_lease
        self._plan = ChunkPlan(renew_every, Coalescer(interval, max_chars, clock), clock)
        self._queue: queue.SimpleQueue[str | _End] = queue.SimpleQueue()
        self.chunks = 0
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="chunk-writer", daemon=True)
        self._thread.start()

    def put(self, delta: str) -> None:
        """Queue a delta; raises WriterFailed once the writer has stopped on an error."""
        if self.error is not None:
            raise WriterFailed(str(self.error)) from self.error
        if delta:
            self._queue.put(delta)

    def close(self, flush: bool = True) -> int:
        """Stop the thread. With flush, every queued delta is written first.

        Returns the number of chunks written; raises WriterFailed if a write
        failed (then some text may be missing from the chunks).
        """
        self._queue.put(_End(flush))
        self._thread.join()
        if self.error is not None and flush:
            raise WriterFailed(str(self.error)) from self.error
        return self.chunks

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # handed to the generating thread via put()/close()
            self.error = exc

    def _loop(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self._plan.seconds_until_next())
            except queue.Empty:
                item = None
            if isinstance(item, _End):
                if item.flush:
                    # Everything still queued was put before the end marker.
                    self._absorb_queued()
                    self._do(self._plan.drain())
                return
            if item is not None:
                self._plan.add(item)
                # Take everything already waiting so one flush covers a burst.
                end = self._absorb_queued()
                if end is not None:
                    if not end.flush:
                        return
                    self._queue.put(end)
            self._do(self._plan.next())

    def _absorb_queued(self) -> _End | None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return None
            if isinstance(item, _End):
                return item
            self._plan.add(item)

    def _do(self, action: Chunk | Renewal | None) -> None:
        if isinstance(action, Renewal):
            self._renew_lease()
        elif action is not None:
            self._write_chunk(self.chunks, action.text, action.renew)
            self.chunks += 1
