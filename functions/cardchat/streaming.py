"""Coalescing of model deltas into a few chunk writes.

One Firestore write per token makes every listener re-sync the whole growing
set of chunk documents (n² work in the browser) and costs one write each. The
coalescer groups deltas: the first delta goes out at once (time to first token
is what a reader notices), then at most one flush per `interval`, or earlier
when the pending text outgrows `max_chars`.

`Coalescer` is pure and clock-injected. `StreamWriter` runs it on a background
thread so that a slow Firestore write never stalls the provider's stream; the
single thread keeps chunk order, and `close()` hands over every pending delta
before it returns.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from typing import Callable

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


class StreamWriter:
    """Feeds deltas through a Coalescer to `write_chunk(index, text, renew)` on
    one background thread.

    `renew` is True when the lease is due for renewal (every `renew_every`
    seconds). A due renewal rides on the next chunk; if no text comes within
    one flush interval, `renew_lease()` is called on its own, so a model that
    thinks silently for a long time keeps its lease.
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
        self._renew_every = renew_every
        self._clock = clock
        self._coalescer = Coalescer(interval, max_chars, clock)
        self._queue: queue.SimpleQueue[str | _End] = queue.SimpleQueue()
        self._next_renew = clock() + renew_every
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

    def _standalone_renewal_at(self) -> float:
        # A due renewal first waits one flush interval for a chunk to ride on.
        return self._next_renew + self._coalescer.interval

    def _timeout(self) -> float:
        due = self._coalescer.seconds_until_due()
        renew = max(0.0, self._standalone_renewal_at() - self._clock())
        return renew if due is None else min(due, renew)

    def _loop(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self._timeout())
            except queue.Empty:
                item = None
            if isinstance(item, _End):
                if item.flush:
                    # Everything still queued was put before the end marker.
                    self._absorb_queued()
                    text = self._coalescer.drain()
                    if text:
                        self._write(text)
                return
            if item is not None:
                self._coalescer.add(item)
                # Take everything already waiting so one flush covers a burst.
                end = self._absorb_queued()
                if end is not None:
                    if not end.flush:
                        return
                    self._queue.put(end)
            text = self._coalescer.take_due()
            if not text and self._clock() >= self._standalone_renewal_at():
                # No chunk came to carry the renewal: carry it on the pending
                # text if there is any, else write it on its own.
                text = self._coalescer.drain()
                if not text:
                    self._renew_lease()
                    self._next_renew = self._clock() + self._renew_every
            if text:
                self._write(text)

    def _absorb_queued(self) -> _End | None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return None
            if isinstance(item, _End):
                return item
            self._coalescer.add(item)

    def _write(self, text: str) -> None:
        renew = self._clock() >= self._next_renew
        self._write_chunk(self.chunks, text, renew)
        self.chunks += 1
        if renew:
            self._next_renew = self._clock() + self._renew_every
