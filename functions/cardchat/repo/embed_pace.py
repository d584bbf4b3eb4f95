"""How often an embedding worker writes its owner's documents.

Each batch rewrites a few documents of one owner: their progress, their
minute's counter of embedded writes, the head of their retrieval index (and
the worker's notice). Firestore sustains about one write a second on one
document, and a worker on a fast machine finishes a 64-card batch in under a
second (`scripts/bench embed_burst`). So an import's worker paces
itself by the batch, not by the card:

- a batch that took less than MIN_BATCH_S doubles the next take (up to
  MAX_GROWTH times the configured size), one that took over SLOW_BATCH_S
  halves it again (never below the configured size): up to 128 cards a
  second, the owner's documents are written about once per MIN_BATCH_S;
- the notice is renewed when half its life is gone, not after every batch.

A size set by CARDCHAT_EMBED_BATCH is kept as set (the burst benchmark
compares fixed sizes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

MIN_BATCH_S = 2.0
SLOW_BATCH_S = 8.0
MAX_GROWTH = 4


@dataclass
class Pace:
    batch: int
    notice: timedelta
    adaptive: bool = True
    #: Seconds for timing a batch (a test passes a fake clock).
    monotonic: Callable[[], float] = time.monotonic
    _floor: int = field(init=False)
    _renew_at: datetime | None = field(init=False, default=None)
    _started: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self._floor = self.batch

    def batch_started(self) -> None:
        self._started = self.monotonic()

    def batch_done(self) -> None:
        """Sizes the next take by how long this batch took."""
        if not self.adaptive:
            return
        took = self.monotonic() - self._started
        if took < MIN_BATCH_S:
            self.batch = min(self.batch * 2, self._floor * MAX_GROWTH)
        elif took > SLOW_BATCH_S:
            self.batch = max(self.batch // 2, self._floor)

    def announced(self, at: datetime) -> None:
        self._renew_at = at + self.notice / 2

    def notice_due(self, at: datetime) -> bool:
        """Whether the notice should be renewed now (half its life gone, or never written by this pace)."""
        return self._renew_at is None or at >= self._renew_at
