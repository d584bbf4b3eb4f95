"""The generation engine on the real Firestore emulator: chunks while it
streams, one final write, no chunk left behind, exactly one generator per
answer, recovery by retry after a generator killed mid-answer, and readable
failures. (A failing model provider: test_engine_providers.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from google.cloud import firestore

from cardchat.access.ratelimit import Limits, admit
from cardchat.chat.history_window import output_reserve
from cardchat.chat.turns import is_stalled, post_message, retry_message
from cardchat.errors import FailedPrecondition
from cardchat.generation.engine import GENERIC_ERROR, generate
from cardchat.generation.run_state import Run
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.repo import messages as repo
from cardchat.repo import ratelimit as ratelimit_repo
from cardchat.schema.accounts import TokenReservation
from cardchat.schema.documents import CHAT_MESSAGES, CHATS
from cardchat.schema.documents import now as utc_now
from cardchat.schema.messages import ChatMessage, FinalAnswer
from engine_support import (
    CLAUDE,
    OFFLINE_ANSWER,
    ROOT,
    SECRET_BACKGROUND,
    ChunkWatcher,
    answer_usage,
    anthropic_wire,
    chunks_left,
    make_chat,
    message,
    paced,
    quick,
)
from provider_wire import anthropic_text, held_after

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "paced", "quick"]  # fixtures, used by name


def test_streams_coalesced_chunks_then_one_final_write_and_no_chunk_left(db, paced):
    stub = make_chat(db)
    # what admission (postMessage) reserves; the run settles it with its usage
    ratelimit_repo.update(
        db, "u1", lambda q: admit(q, utc_now(), Limits(), TokenReservation(stub, 1, 50_000, utc_now()))
    )
    before = db.collection(CHATS).document("chat1").get().get("last_updated")
    watcher = ChunkWatcher(db, stub)
    status = generate(db, stub)
    watcher.wait_until_streamed()
    watcher.close()

    assert status == "complete"
    msg = message(db, stub)
    assert msg["status"] == "complete"
    assert msg["content"] == OFFLINE_ANSWER
    assert watcher.text() == msg["content"]  # exactly the chunks, in order
    assert chunks_left(db) == 0
    words = len(OFFLINE_ANSWER.split())
    assert msg["timings"]["chunks"] == len(watcher.seen)
    # Coalesced: far fewer chunk writes than words. (At most one flush per interval is pinned on a
    # fake clock in test_chunk_writer.py; that chunks show while the answer is being written, in
    # test_chunks_are_visible_while_the_answer_is_still_being_written.)
    assert len(watcher.seen) < words / 3
    assert 0 < msg["timings"]["ttft"] < msg["timings"]["total"]
    assert msg["lease_expires"] is None and msg["attempts"] == 1 and msg["model"] == OFFLINE_MODEL_ID
    assert msg["usage"]["output_tokens"] > 0
    assert db.collection(CHATS).document("chat1").get().get("last_updated") > before
    usage = answer_usage(db, stub)["usage"]
    settled = ratelimit_repo.get(db, "u1")
    assert settled.day_tokens == usage["input_tokens"] + usage["output_tokens"] and settled.reservations == []


def test_chunks_are_visible_while_the_answer_is_still_being_written(db, anthropic_wire):
    """Structural, not timed: the provider's stream stops after its first words until the
    reader has seen them as a chunk, so that chunk cannot have come with the final write."""
    release = threading.Event()
    # message_start, content_block_start and the first delta; the rest waits for `release`
    anthropic_wire.responses = [held_after(anthropic_text("Tides follow", " the moon [1]."), 3, release)]
    stub = make_chat(db, model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    watcher = ChunkWatcher(db, stub)
    results: list[str] = []
    worker = threading.Thread(target=lambda: results.append(generate(db, stub)))
    worker.start()
    try:
        watcher.wait_until(lambda w: 0 in w.seen, timeout=30)
        during = message(db, stub)
    finally:
        release.set()
        worker.join(60)
    watcher.wait_until_streamed()
    watcher.close()

    assert during["status"] == "streaming"
    assert watcher.seen[0] == "Tides follow"
    assert results == ["complete"]
    assert message(db, stub)["content"] == watcher.text() == "Tides follow the moon [1]."


def test_two_generators_racing_on_one_answer_stream_it_once(db, paced):
    stub = make_chat(db)
    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(generate(db, stub))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["complete", "skipped"]
    msg = message(db, stub)
    assert msg["attempts"] == 1 and msg["content"] == OFFLINE_ANSWER
    # a late duplicate delivery changes nothing either
    assert generate(db, stub) == "skipped"
    assert message(db, stub)["attempts"] == 1


#: Seconds a third party holds a lock on the raced message: longer than the
#: emulator's 2 s lock timeout times the client's 5 transaction attempts, so a
#: take that gives up after its attempts meets the contention that failed CI
#: (both racers ABORTED) on every run, not once in a while.
LOCK_HELD_S = 12.0


def test_duplicate_deliveries_outlast_a_held_lock_and_end_complete_and_skipped(db):
    stub = make_chat(db)
    ref = db.collection(CHAT_MESSAGES).document(stub)
    holding, release = threading.Event(), threading.Event()

    @firestore.transactional
    def hold(tx) -> None:  # a transaction that read the message and has not finished
        ref.get(transaction=tx)
        holding.set()
        release.wait(LOCK_HELD_S)

    holder = threading.Thread(target=hold, args=(db.transaction(),))
    holder.start()
    assert holding.wait(10)
    results: list[str] = []
    errors: list[BaseException] = []

    def deliver() -> None:
        try:
            results.append(generate(db, stub))
        except BaseException as e:  # a racer that raises is the bug: kept for the assert
            errors.append(e)

    racers = [threading.Thread(target=deliver) for _ in range(2)]
    for t in racers:
        t.start()
    holder.join()  # the lock goes after LOCK_HELD_S; the racers wait it out
    for t in racers:
        t.join()
    assert [repr(e)[:300] for e in errors] == [] and sorted(results) == ["complete", "skipped"]
    msg = message(db, stub)
    assert (msg["status"], msg["attempts"], msg["content"]) == ("complete", 1, OFFLINE_ANSWER)
    assert chunks_left(db) == 0


def test_a_stalled_run_cannot_write_over_the_run_that_replaced_it(db):
    stub = make_chat(db)
    old = repo.take_run(db, stub, "old-run", utc_now())  # a lease that has already run out
    assert old is not None and is_stalled(ChatMessage.from_dict(message(db, stub)), utc_now())
    retry_message(db, "u1", stub)
    assert generate(db, stub) == "complete"
    from cardchat.schema.messages import StreamChunk

    late = StreamChunk(chat="chat1", message=stub, message_index=1, index=0, content="stale")
    with pytest.raises(repo.LostOwnership):
        repo.write_chunk(db, stub, "old-run", late)
    with pytest.raises(repo.LostOwnership):
        repo.finish(db, stub, "old-run", FinalAnswer.failed("", "stale"))
    assert message(db, stub)["content"] == OFFLINE_ANSWER
    assert chunks_left(db) == 0


def test_a_generator_killed_mid_answer_stalls_and_a_retry_completes_it(db, firestore_host):
    stub = make_chat(db)
    env = {
        **os.environ,
        "FIRESTORE_EMULATOR_HOST": firestore_host,
        "PYTHONPATH": str(ROOT / "functions"),
        "CARDCHAT_LEASE_SECONDS": "1.5",
        "CARDCHAT_OFFLINE_PACE_MS": "150",
    }
    code = (
        "import sys; from google.cloud import firestore; from cardchat.generation.engine import generate; "
        "print(generate(firestore.Client(project=sys.argv[1]), sys.argv[2]))"
    )
    watcher = ChunkWatcher(db, stub)
    child = subprocess.Popen(
        [sys.executable, "-c", code, db.project, stub],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        watcher.wait_until(lambda w: len(w.seen) >= 2, timeout=20)
    except AssertionError:
        child.kill()
        raise AssertionError(child.communicate()[1].decode()[-2000:]) from None
    child.kill()
    killed_at = utc_now()
    child.wait()
    watcher.close()
    left = chunks_left(db)
    assert left >= 2

    msg = message(db, stub)
    assert msg["status"] == "streaming"
    # When it died its lease was running (renewed every 0.5 s): judged at that
    # moment, not now, so a slow machine cannot turn this into a race.
    assert not is_stalled(ChatMessage.from_dict(msg), killed_at)
    # Nothing renews it any more: from the moment its lease runs out it counts as stalled
    # (judged on that clock rather than by waiting for it on this machine's).
    expired = msg["lease_expires"]
    assert is_stalled(ChatMessage.from_dict(msg), expired)
    with pytest.raises(FailedPrecondition, match="stopped"):
        post_message(db, "u1", "chat1", "next question", now=expired)

    retry_message(db, "u1", stub, now=expired)
    assert chunks_left(db) == 0  # the dead run's chunks went with the retry
    assert generate(db, stub) == "complete"
    done = message(db, stub)
    assert done["content"] == OFFLINE_ANSWER and done["attempts"] == 2
    assert chunks_left(db) == 0


def test_long_history_drops_the_oldest_turns_to_fit_the_window(db):
    spec = MODELS[OFFLINE_MODEL_ID]
    turn = " ".join(f"word{i}" for i in range(2500))  # several thousand tokens each
    history = [("user" if i % 2 == 0 else "assistant", f"turn {i}: {turn}") for i in range(16)]
    stub = make_chat(db, history=history)
    assert generate(db, stub) == "complete"
    msg = message(db, stub)
    assert msg["dropped_turns"] > 0 and msg["dropped_turns"] % 2 == 0  # whole exchanges, from the oldest
    assert answer_usage(db, stub)["usage"]["input_tokens"] <= spec.context_window - output_reserve(spec)
    # nothing needed dropping in a short chat
    short = make_chat(db, "chat2", history=history[-2:])
    generate(db, short)
    assert message(db, short)["dropped_turns"] == 0


def test_a_background_that_leaves_no_room_fails_readably(db):
    spec = MODELS[OFFLINE_MODEL_ID]
    stub = make_chat(db, background_tokens=spec.context_window)
    assert generate(db, stub) == "failed"
    msg = message(db, stub)
    assert msg["error"] == "The conversation is too long for the model's context window" and msg["content"] == ""


def test_an_unexpected_error_fails_generically_and_logs_no_background(db, caplog):
    stub = make_chat(db, background=SECRET_BACKGROUND, background_tokens=40)
    db.collection("chat_backgrounds").document("chat1").delete()  # the store lost it
    with caplog.at_level("ERROR", logger="cardchat.generation.engine"):
        assert generate(db, stub) == "failed"
    msg = message(db, stub)
    assert msg["error"] == GENERIC_ERROR and msg["lease_expires"] is None
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "LookupError" in logged and stub in logged and "read_background" in logged
    assert "whiteboard" not in logged


def test_a_failed_chunk_write_is_retried_with_backoff_then_given_up():
    pauses: list[float] = []
    run = Run(None, "m", {"chat": "c", "message_index": 1}, "r", 30.0, utc_now, pauses.append)
    attempts: list[int] = []

    def flaky() -> None:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("emulator hiccup")

    run._retrying(flaky)
    assert len(attempts) == 3 and pauses == pytest.approx([0.2, 0.6])

    def lost() -> None:
        raise repo.LostOwnership("m")

    with pytest.raises(repo.LostOwnership):
        run._retrying(lost)  # not worth a retry: another run owns the answer
    assert len(pauses) == 2
    with pytest.raises(ConnectionError):
        run._retrying(lambda: (_ for _ in ()).throw(ConnectionError("down")))
