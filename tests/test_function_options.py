"""Each function's deployed CPU and concurrency, as firebase_functions hands them to the deploy, held to
one table: a change is a decision, made here and in docs/scale.md, never a side effect.

A function that serves several calls at once needs a whole vCPU (Cloud Run refuses a concurrency above 1
on less), threads enough for them in its process, and thread-safe process-wide caches. Those that rank
with MiniLM (createChat, searchCards, checkDraft, ...) or embed in bulk keep one call an instance: their
calls want the whole CPU, and two at once would only make each slower.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"

#: (cpu, concurrency) of the functions that serve several calls at once; every other one keeps Cloud
#: Functions' first-generation CPU share for its memory and one call an instance.
SHARED = {
    "generateAnswer": (1, 8),  # an answer mostly waits on the provider's stream
    "postMessage": (1, 16),  # these wait on Firestore: a transaction or a few reads
    "retryMessage": (1, 16),
    "rateAnswer": (1, 16),
    "pinCard": (1, 16),
    "excludeCard": (1, 16),
    "listModels": (1, 16),
}
ONE_AT_A_TIME = ("gcf_gen1", None)

_PROBE = """
import json, os, main
out = {}
for name, fn in vars(main).items():
    e = getattr(fn, "__firebase_endpoint__", None)
    if e is not None:
        out[name] = [e.cpu, e.concurrency if isinstance(e.concurrency, int) else None]
print(json.dumps({"functions": out, "threads": os.environ.get("THREADS")}))
"""


def _declared() -> dict[str, object]:
    run = subprocess.run([sys.executable, "-c", _PROBE], cwd=FUNCTIONS, capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_each_function_serves_the_calls_at_once_this_table_says():
    declared = _declared()["functions"]
    assert isinstance(declared, dict)
    assert set(SHARED) <= set(declared)
    for name, (cpu, concurrency) in declared.items():
        assert (cpu, concurrency) == SHARED.get(name, ONE_AT_A_TIME), name


def test_a_shared_instance_runs_as_many_threads_as_calls():
    declared = _declared()
    assert int(str(declared["threads"])) >= max(concurrency for _, concurrency in SHARED.values())
