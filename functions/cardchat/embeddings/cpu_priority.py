"""How an embedding process yields the CPU: bulk embedding (an import's worker, a backfill beside a
live app) runs at a higher niceness than the answers and callables sharing its cores."""

from __future__ import annotations

import contextlib
import os

_THREADS = "/proc/self/task"


def lower_to(niceness: int) -> None:
    """This process runs at `niceness` at least (a higher one is kept). On Linux a niceness belongs
    to a thread: every thread of the process gets it, and threads started later inherit it."""
    if not os.path.isdir(_THREADS):  # not Linux: a niceness is the process's
        os.nice(max(0, niceness - os.nice(0)))
        return
    for thread in map(int, os.listdir(_THREADS)):
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            now = os.getpriority(os.PRIO_PROCESS, thread)
            os.setpriority(os.PRIO_PROCESS, thread, max(niceness, now))
