"""cpu_priority.lower_to in a process of its own (a niceness is never given back): every thread
gets it, a thread started before it included, and a higher niceness is kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"

_PROBE = """
import os, threading
from cardchat.embeddings import cpu_priority

def niceness(tid):
    return int(open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()[16])

started, stop = threading.Event(), threading.Event()
ids = []
def earlier():
    ids.append(threading.get_native_id())
    started.set()
    stop.wait()
t = threading.Thread(target=earlier)
t.start()
started.wait()
cpu_priority.lower_to(7)
print(niceness(threading.get_native_id()), niceness(ids[0]))
cpu_priority.lower_to(3)
print(niceness(threading.get_native_id()), niceness(ids[0]))
stop.set()
"""


def test_every_thread_is_lowered_and_a_higher_niceness_kept() -> None:
    run = subprocess.run([sys.executable, "-c", _PROBE], cwd=FUNCTIONS, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["7", "7", "7", "7"]
