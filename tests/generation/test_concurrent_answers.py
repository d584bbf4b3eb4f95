"""Eight answers at once in one process, as one generateAnswer instance serves them with a
concurrency above 1: each on its own chat, through the Anthropic SDK against a local server in
its wire format, all eight streams held open together. Each answer's chunks and final write are
its own, no run loses its lease, and each answer's usage is counted once."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from benchmarks.fake_provider import FakeAnthropic
from cardchat.access.ratelimit import Limits, admit
from cardchat.generation.engine import generate
from cardchat.repo import answer_tasks
from cardchat.repo import ratelimit as ratelimit_repo
from cardchat.schema.accounts import TokenReservation
from cardchat.schema.documents import now as utc_now
from engine_support import CLAUDE, FAKE_KEY, ChunkWatcher, answer_usage, chunks_left, make_chat, message, quick

pytestmark = pytest.mark.emulator
__all__ = ["quick"]  # a fixture, used by name

ANSWERS = 8
OWNERS = 4  # two answers per owner: their rate-limit document is settled by both at once
MARKER = re.compile(r"marker-(\d+)")
FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"


def _words(body: dict) -> list[str]:
    """The answer to a request: it names the marker of the background it was sent."""
    k = MARKER.search(json.dumps(body)).group(1)
    return f"Answer {k}: tides follow the moon [1], as card marker-{k} says.".split(" ")


@pytest.fixture
def fake_anthropic(monkeypatch):
    all_in_flight = threading.Barrier(ANSWERS, timeout=120)  # a bound only: it turns a hang into a failure
    with FakeAnthropic(0, first_token_s=0.05, words_for=_words, hold=all_in_flight) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{fake.port}")
        yield fake


def _ready_answers(db) -> dict[str, str]:
    """stub id -> its owner, each stub admitted with a token reservation as postMessage admits it."""
    stubs = {}
    for k in range(ANSWERS):
        owner = f"owner{k % OWNERS}"
        background = f"[1] Tide card {k}\nTides follow the moon; this card carries marker-{k}."
        stub = make_chat(db, f"chat{k}", owner=owner, model=CLAUDE, background=background, background_tokens=20)
        ratelimit_repo.update(
            db, owner, lambda q, s=stub: admit(q, utc_now(), Limits(), TokenReservation(s, 1, 50_000, utc_now()))
        )
        stubs[stub] = owner
    return stubs


def test_eight_answers_at_once_in_one_process_each_keep_to_their_own(db, fake_anthropic):
    stubs = _ready_answers(db)
    watchers = {stub: ChunkWatcher(db, stub) for stub in stubs}
    with ThreadPoolExecutor(max_workers=ANSWERS) as pool:
        statuses = dict(zip(stubs, pool.map(lambda s: generate(db, s), stubs), strict=True))
    for w in watchers.values():
        w.wait_until_streamed()
        w.close()

    assert len(fake_anthropic.calls) == ANSWERS  # and all eight passed the barrier together
    for k, stub in enumerate(stubs):
        msg = message(db, stub)
        assert statuses[stub] == "complete", (stub, msg.get("error"))  # "superseded" if its lease was lost
        assert msg["content"] == " ".join(_words({"marker": f"marker-{k}"}))
        assert watchers[stub].text() == msg["content"]  # every chunk it saw is its own answer's
        assert msg["attempts"] == 1 and msg["lease_expires"] is None
    assert chunks_left(db) == 0

    for owner in {o for o in stubs.values()}:
        theirs = [s for s, o in stubs.items() if o == owner]
        usages = [answer_usage(db, s)["usage"] for s in theirs]
        settled = ratelimit_repo.get(db, owner)
        # counted once each: the day's tokens are the sum of this owner's two answers, nothing reserved left
        assert settled.day_tokens == sum(u["input_tokens"] + u["output_tokens"] for u in usages) > 0
        assert settled.reservations == []


def test_the_deployment_runs_as_many_answers_per_instance_as_this_test_and_queues_for_all():
    """generateAnswer's deployed concurrency is what the test above runs in one process, on a whole
    vCPU, and the queue dispatches as many at once as its instances can run."""
    probe = (
        "import json, main; e = main.generateAnswer.__firebase_endpoint__; "
        "print(json.dumps([e.concurrency, e.cpu, e.maxInstances]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=FUNCTIONS, capture_output=True, text=True, check=True)
    concurrency, cpu, max_instances = json.loads(out.stdout.strip().splitlines()[-1])
    assert concurrency == answer_tasks.ANSWERS_PER_INSTANCE == ANSWERS
    assert cpu >= 1
    assert max_instances * concurrency == answer_tasks.AT_ONCE
