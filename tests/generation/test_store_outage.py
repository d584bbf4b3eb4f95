"""Firestore going away mid-answer: the test's own emulator is killed while
an answer streams and started again with its data. The run's writes wait the
outage out (the client retries a write for about a minute, the engine three
times), so the answer resumes and completes, its text once, no chunk left,
nothing left for the sweeper. An outage longer than that ends the run, its
answer left `streaming` under a lease that runs out: the sweeper's case
(test_sweeper.py)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from conftest import PROJECT
from google.cloud import firestore

from cardchat.generation.engine import generate
from cardchat.generation.sweeper import sweep
from cardchat.repo import messages as repo
from cardchat.schema.documents import now as utc_now
from engine_support import CLAUDE, anthropic_wire, chunks_left, make_chat, message, quick
from fault_support import PrivateFirestore
from provider_wire import anthropic_text, held_after

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "quick"]  # fixtures, used by name

DELTAS = ["Tides ", "follow ", "the ", "moon ", "[1]."]
#: How long the run may take to ride the outage out (a bound, not a pace).
RUN_BOUND_S = 300


@pytest.fixture
def store(tmp_path, monkeypatch):
    private = PrivateFirestore(tmp_path)
    private.start()
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", private.host)
    yield private
    private.kill()


def _until(predicate, bound_s: float, what: str) -> None:
    give_up = time.monotonic() + bound_s
    while not predicate():
        if time.monotonic() > give_up:
            raise AssertionError(f"{what} within {bound_s} s")
        time.sleep(0.05)


def test_an_answer_streaming_through_a_store_restart_resumes_and_completes(store, anthropic_wire):
    db = firestore.Client(project=PROJECT)
    stub = make_chat(db, model=CLAUDE)
    release = threading.Event()
    # message_start, content_block_start and the first delta; the rest once the store is gone
    anthropic_wire.responses = [held_after(anthropic_text(*DELTAS), 3, release)]
    results: list[str] = []
    run = threading.Thread(target=lambda: results.append(generate(db, stub)))
    run.start()
    try:
        _until(lambda: len(repo.read_chunks(db, stub)) == 1, 60, "the first chunk was not written")
        seed = store.export(PROJECT)
        store.kill()
        release.set()  # the rest of the answer arrives while the store is down
        store.start(seed)
    finally:
        release.set()
        run.join(RUN_BOUND_S)
    assert not run.is_alive() and results == ["complete"]
    done = message(db, stub)
    assert (done["status"], done["content"], done["attempts"]) == ("complete", "".join(DELTAS), 1)
    assert chunks_left(db) == 0
    assert sweep(db, now=lambda: utc_now() + timedelta(hours=1)).found == 0
    db.close()
