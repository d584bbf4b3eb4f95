"""Scrubbing a provider's error text against a large background: the echo search
(scrub.remove_echo) on a background of a 1M-token window's size. The goal is
well under 2 s on two cores (a benchmark, not a test: timing asserts fail on
a loaded machine). Needs no Firestore; the db argument is ignored.

    PYTHONPATH=functions:. functions/venv/bin/python -m benchmarks.bench_scrub
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from benchmarks.common import sized
from cardchat.providers.scrub import remove_echo

GOAL_S = 2.0
BACKGROUND = "\n\n".join(
    f"[{i}] Card {i}\nThe quarterly figure for region {i} was {i * 37} units, reported by the north office "
    f"after the audit of shipment batch {i * 11}; confidential until the board meets."
    for i in range(1, 40)
)


def run(_db: Any = None) -> list[str]:
    big = BACKGROUND * sized(300, 3)
    text = "upstream said: " + BACKGROUND[2000:6000] + " and something else entirely " * 20
    times = []
    for _ in range(sized(3, 1)):
        start = time.perf_counter()
        out = remove_echo(text, big)
        times.append(time.perf_counter() - start)
    assert "quarterly" not in out and "something else entirely" in out
    t = statistics.median(times)
    verdict = "within" if t < GOAL_S else "OVER"
    return [
        f"remove_echo of a {len(text):,}-char error against a {len(big) / 1e6:.1f} MB background:"
        f" median {t * 1000:,.0f} ms of {len(times)} ({verdict} the {GOAL_S:.0f} s goal)"
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
