"""The generation engine on the real Firestore emulator: chunks while it
streams, one final write, no chunk left behind, exactly one generator per
answer, failures that keep the partial text, and recovery by retry after a
provider error or a generator killed mid-answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from google.cloud import firestore
from provider_wire import Wire, fixture_response, sse

from cardchat import providers
from cardchat.conversation import output_reserve, post_message, retry_message
from cardchat.engine import CUT_OFF_TIME, GENERIC_ERROR, PROVIDER_BACKOFF_S, _Run, generate, is_stalled, should_generate
from cardchat.errors import FailedPrecondition
from cardchat.models import MODELS, OFFLINE_MODEL_ID
from cardchat.providers.anthropic import AnthropicProvider
from cardchat.providers.offline import HEADER, NO_CARDS
from cardchat.repo import messages as repo
from cardchat.repo import ratelimit as ratelimit_repo
from cardchat.repo.chats import write_new_chat
from cardchat.schema import CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, CHATS, Chat, ChatBackground, ChatMessage
from cardchat.schema import now as utc_now

pytestmark = pytest.mark.emulator

ROOT = Path(__file__).resolve().parents[1]
OFFLINE_ANSWER = f"{HEADER}\n\n{NO_CARDS}"
FAKE_KEY = "sk-ant-api03-FAKEKEY0123456789abcdefghijklmnopqrstuvwxyz"
CLAUDE = next(m.id for m in MODELS.values() if m.provider == "anthropic")
SECRET_BACKGROUND = (
    "[1] Launch notes\nThe launch code for the internal project is written on the blue whiteboard in room 4."
)


def make_chat(
    db: firestore.Client,
    chat_id: str = "chat1",
    *,
    owner: str = "u1",
    model: str = OFFLINE_MODEL_ID,
    history: list[tuple[str, str]] | None = None,
    background: str = "",
    background_tokens: int = 0,
) -> str:
    """A chat whose last message is an assistant stub `ready` to generate;
    returns the stub's id. `history` is (role, content) before the question."""
    turns = list(history or []) + [("user", "What do my cards say?")]
    messages = [
        (f"{chat_id}-m{i}", ChatMessage(chat=chat_id, message_index=i, role=role, content=text,
                                        status="complete"))
        for i, (role, text) in enumerate(turns)
    ]
    stub_id = f"{chat_id}-m{len(turns)}"
    messages.append((stub_id, ChatMessage(chat=chat_id, message_index=len(turns), role="assistant",
                                          content="", status="ready", model=model)))
    chat = Chat(owner=owner, title="t", model=model, background_length=background_tokens,
                background_tokens=background_tokens, card_ids=[], card_count_requested=0,
                message_count=len(messages))
    write_new_chat(db, chat_id, chat,
                   ChatBackground(chat=chat_id, owner=owner, model=model, tokens=background_tokens, parts=0),
                   background, messages)
    return stub_id


class ChunkWatcher:
    """An on_snapshot listener on a message's chunks, as the SPA has: keeps
    every chunk it ever saw and when it first saw it."""

    def __init__(self, db: firestore.Client, message_id: str) -> None:
        self.seen: dict[int, str] = {}
        self.first_seen: dict[int, float] = {}
        self.present = 0
        self.lock = threading.Lock()
        query = db.collection(CHAT_MESSAGES_STREAMING).where(
            filter=firestore.FieldFilter("message", "==", message_id))
        self.ready = threading.Event()
        self.watch = query.on_snapshot(self._on)
        assert self.ready.wait(10)

    def _on(self, docs, changes, read_time) -> None:
        with self.lock:
            for d in docs:
                c = d.to_dict()
                self.seen.setdefault(c["index"], c["content"])
                self.first_seen.setdefault(c["index"], time.monotonic())
            self.present = len(docs)
        self.ready.set()

    def text(self) -> str:
        with self.lock:
            assert sorted(self.seen) == list(range(len(self.seen)))
            return "".join(self.seen[i] for i in sorted(self.seen))

    def wait_until(self, predicate, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(self):
                    return
            time.sleep(0.02)
        raise AssertionError("the listener never saw the expected chunks")

    def close(self) -> None:
        self.watch.unsubscribe()


def chunks_left(db: firestore.Client) -> int:
    return len(list(db.collection(CHAT_MESSAGES_STREAMING).stream()))


def message(db: firestore.Client, message_id: str) -> dict:
    return db.collection(CHAT_MESSAGES).document(message_id).get().to_dict()


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setenv("CARDCHAT_OFFLINE_PACE_MS", "2")


@pytest.fixture
def paced(monkeypatch):
    monkeypatch.setenv("CARDCHAT_OFFLINE_PACE_MS", "40")


def test_should_generate_only_ready_answers():
    assert should_generate({"role": "assistant", "status": "ready"})
    assert not should_generate({"role": "assistant", "status": "streaming"})
    assert not should_generate({"role": "user", "status": "ready"})
    assert not should_generate(None)


def test_streams_coalesced_chunks_then_one_final_write_and_no_chunk_left(db, paced):
    stub = make_chat(db)
    before = db.collection(CHATS).document("chat1").get().get("last_updated")
    watcher = ChunkWatcher(db, stub)
    started = time.monotonic()
    status = generate(db, stub)
    finished = time.monotonic()
    watcher.wait_until(lambda w: w.present == 0)
    watcher.close()

    assert status == "complete"
    msg = message(db, stub)
    assert msg["status"] == "complete"
    assert msg["content"] == OFFLINE_ANSWER
    assert watcher.text() == msg["content"]  # exactly the chunks, in order
    # chunks were visible while it generated, not only at the end
    assert watcher.first_seen[0] < finished - 0.5
    assert chunks_left(db) == 0
    words = len(OFFLINE_ANSWER.split())
    elapsed = finished - started
    assert msg["timings"]["chunks"] == len(watcher.seen)
    # ≤ 5 chunk writes per second (plus the immediate first and the final drain), far fewer than words
    assert len(watcher.seen) <= 5 * elapsed + 2
    assert len(watcher.seen) < words / 3
    assert 0 < msg["timings"]["ttft"] < msg["timings"]["total"]
    assert msg["lease_expires"] is None and msg["attempts"] == 1 and msg["model"] == OFFLINE_MODEL_ID
    assert msg["usage"]["output_tokens"] > 0
    assert db.collection(CHATS).document("chat1").get().get("last_updated") > before
    usage = msg["usage"]
    assert ratelimit_repo.get(db, "u1").day_tokens == usage["input_tokens"] + usage["output_tokens"]


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


@pytest.fixture
def anthropic_wire(monkeypatch) -> Wire:
    """The Anthropic SDK answered by canned responses (append them to `.responses`)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    wire = Wire()
    client = wire.client()
    monkeypatch.setitem(providers.PROVIDERS, "anthropic", lambda: AnthropicProvider(client))
    return wire


def test_provider_error_mid_stream_keeps_the_partial_text_then_retry_completes(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    anthropic_wire.responses = [sse("anthropic_overloaded_midstream.sse")]
    watcher = ChunkWatcher(db, stub)
    assert generate(db, stub) == "failed"
    watcher.wait_until(lambda w: w.present == 0)
    watcher.close()

    failed = message(db, stub)
    assert failed["status"] == "failed"
    assert failed["content"] == "Partial answer"
    assert "overloaded" in failed["error"].lower()
    assert FAKE_KEY not in failed["error"] and "whiteboard" not in failed["error"]
    assert failed["lease_expires"] is None
    assert watcher.text() == "Partial answer"  # the reader saw what was kept
    assert len(anthropic_wire.requests) == 1  # text had streamed: not asked again
    assert chunks_left(db) == 0
    # the background went as the system text, the conversation as messages
    sent = json.loads(anthropic_wire.requests[0].content)
    assert sent["system"][0]["text"] == SECRET_BACKGROUND
    assert sent["messages"] == [{"role": "user", "content": "What do my cards say?"}]

    with pytest.raises(FailedPrecondition):
        post_message(db, "u1", "chat1", "another question")
    assert retry_message(db, "u1", stub) == stub
    reset = message(db, stub)
    assert (reset["status"], reset["content"], reset["error"]) == ("ready", "", None)

    anthropic_wire.responses = [sse("anthropic_stream.sse")]
    assert generate(db, stub) == "complete"
    done = message(db, stub)
    assert done["content"] == "Tides follow the moon [1]."
    assert done["attempts"] == 2 and done["error"] is None
    assert done["usage"] == {"input_tokens": 1225, "output_tokens": 9}
    assert chunks_left(db) == 0


class Renewals:
    """generate's sleep: records each pause and when the lease was renewed."""

    def __init__(self, db, message_id: str) -> None:
        self.db, self.message_id = db, message_id
        self.pauses: list[float] = []
        self.leases: list = []
        self.waits: list = []

    def __call__(self, seconds: float) -> None:
        self.pauses.append(seconds)
        msg = message(self.db, self.message_id)
        self.leases.append(msg["lease_expires"])
        self.waits.append(msg.get("provider_wait"))


def test_an_overloaded_provider_is_asked_again_before_the_first_token(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    anthropic_wire.responses = [
        fixture_response(529, "anthropic_overloaded_529.json"),
        fixture_response(429, "anthropic_rate_limit_429.json", **{"retry-after": "7"}),
        sse("anthropic_stream.sse"),
    ]
    sleep = Renewals(db, stub)
    assert generate(db, stub, sleep=sleep, lease=3.0) == "complete"

    done = message(db, stub)
    assert done["content"] == "Tides follow the moon [1]." and done["error"] is None
    assert done["timings"]["provider_retries"] == 2 and done["cut_off"] is None
    assert len(anthropic_wire.requests) == 3
    # the backoff first, then the provider's own Retry-After, in steps of a third of the lease
    assert sum(sleep.pauses[:2]) == pytest.approx(PROVIDER_BACKOFF_S[0])
    assert sum(sleep.pauses[2:]) == pytest.approx(7.0) and len(sleep.pauses) == 2 + 7
    # the lease was renewed after every pause: the answer never looked stalled
    assert len(set(sleep.leases)) == len(sleep.leases)
    # the reader is told why nothing arrives yet, and until when; scrubbed of key and background
    first, second = sleep.waits[0], sleep.waits[2]
    assert "overloaded" in first["reason"] and first["call"] == 2
    assert "rate limit" in second["reason"] and second["call"] == 3
    assert second["until"] > first["until"]
    assert not any(FAKE_KEY in w["reason"] or "whiteboard" in w["reason"] for w in sleep.waits)
    assert done["provider_wait"] is None


def test_a_provider_that_stays_overloaded_fails_after_four_calls(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE)
    anthropic_wire.responses = [fixture_response(529, "anthropic_overloaded_529.json") for _ in range(5)]
    sleep = Renewals(db, stub)
    assert generate(db, stub, sleep=sleep) == "failed"
    failed = message(db, stub)
    assert "overloaded" in failed["error"] and failed["content"] == "" and failed["provider_wait"] is None
    assert len(anthropic_wire.requests) == 4
    assert sum(sleep.pauses) == pytest.approx(sum(PROVIDER_BACKOFF_S))


def test_a_long_retry_after_or_a_refused_key_fails_at_once(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE)
    anthropic_wire.responses = [fixture_response(429, "anthropic_rate_limit_429.json", **{"retry-after": "3600"})]
    sleep = Renewals(db, stub)
    assert generate(db, stub, sleep=sleep) == "failed"
    assert "rate limit" in message(db, stub)["error"] and sleep.pauses == []

    retry_message(db, "u1", stub)
    anthropic_wire.responses = [fixture_response(401, "anthropic_invalid_key_401.json")]
    assert generate(db, stub, sleep=sleep) == "failed"
    assert "API key was refused" in message(db, stub)["error"] and sleep.pauses == []
    assert len(anthropic_wire.requests) == 2


def test_an_answer_still_streaming_at_the_deadline_is_cut_off_and_kept(db, paced):
    stub = make_chat(db)
    assert generate(db, stub, deadline=0.3) == "complete"
    msg = message(db, stub)
    assert msg["cut_off"] == CUT_OFF_TIME and msg["error"] is None
    assert msg["content"] and OFFLINE_ANSWER.startswith(msg["content"]) and msg["content"] != OFFLINE_ANSWER
    # no usage came from the provider: an estimate, so the rate limit still counts it
    assert msg["usage"]["output_tokens"] > 0 and msg["usage"]["input_tokens"] > 0
    assert chunks_left(db) == 0

    whole = make_chat(db, "chat2")
    assert generate(db, whole) == "complete"
    assert message(db, whole)["cut_off"] is None


def test_a_stalled_run_cannot_write_over_the_run_that_replaced_it(db):
    stub = make_chat(db)
    old = repo.claim(db, stub, "old-run", utc_now())  # a lease that has already run out
    assert old is not None and is_stalled(message(db, stub), utc_now())
    retry_message(db, "u1", stub)
    assert generate(db, stub) == "complete"
    from cardchat.schema import StreamChunk

    late = StreamChunk(chat="chat1", message=stub, message_index=1, index=0, content="stale")
    with pytest.raises(repo.LostOwnership):
        repo.write_chunk(db, stub, "old-run", late)
    with pytest.raises(repo.LostOwnership):
        repo.finish(db, stub, "old-run", {"status": "failed", "content": "stale"})
    assert message(db, stub)["content"] == OFFLINE_ANSWER
    assert chunks_left(db) == 0


def test_a_generator_killed_mid_answer_stalls_and_a_retry_completes_it(db, firestore_host):
    stub = make_chat(db)
    env = {**os.environ, "FIRESTORE_EMULATOR_HOST": firestore_host,
           "PYTHONPATH": str(ROOT / "functions"), "CARDCHAT_LEASE_SECONDS": "1.5",
           "CARDCHAT_OFFLINE_PACE_MS": "150"}
    code = ("import sys; from google.cloud import firestore; from cardchat.engine import generate; "
            "print(generate(firestore.Client(project=sys.argv[1]), sys.argv[2]))")
    watcher = ChunkWatcher(db, stub)
    child = subprocess.Popen([sys.executable, "-c", code, db.project, stub], env=env, cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        watcher.wait_until(lambda w: len(w.seen) >= 2, timeout=20)
    except AssertionError:
        child.kill()
        raise AssertionError(child.communicate()[1].decode()[-2000:]) from None
    child.kill()
    child.wait()
    watcher.close()
    left = chunks_left(db)
    assert left >= 2

    msg = message(db, stub)
    assert msg["status"] == "streaming"
    assert not is_stalled(msg, utc_now())  # renewed ≤ 0.5 s ago: the lease still runs
    deadline = time.monotonic() + 5
    while not is_stalled(message(db, stub), utc_now()):
        assert time.monotonic() < deadline, "the lease never ran out"
        time.sleep(0.1)
    with pytest.raises(FailedPrecondition, match="stopped"):
        post_message(db, "u1", "chat1", "next question")

    retry_message(db, "u1", stub)
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
    assert msg["usage"]["input_tokens"] <= spec.context_window - output_reserve(spec)
    # nothing needed dropping in a short chat
    short = make_chat(db, "chat2", history=history[-2:])
    generate(db, short)
    assert message(db, short)["dropped_turns"] == 0


def test_a_background_that_leaves_no_room_fails_readably(db):
    spec = MODELS[OFFLINE_MODEL_ID]
    stub = make_chat(db, background_tokens=spec.context_window)
    assert generate(db, stub) == "failed"
    msg = message(db, stub)
    assert "context window" in msg["error"] and msg["content"] == ""


def test_an_unexpected_error_fails_generically_and_logs_no_background(db, caplog):
    stub = make_chat(db, background=SECRET_BACKGROUND, background_tokens=40)
    db.collection("chat_backgrounds").document("chat1").delete()  # the store lost it
    with caplog.at_level("ERROR", logger="cardchat.engine"):
        assert generate(db, stub) == "failed"
    msg = message(db, stub)
    assert msg["error"] == GENERIC_ERROR and msg["lease_expires"] is None
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "LookupError" in logged and stub in logged and "read_background" in logged
    assert "whiteboard" not in logged


def test_a_failed_chunk_write_is_retried_with_backoff_then_given_up():
    pauses: list[float] = []
    run = _Run(None, "m", {"chat": "c", "message_index": 1}, "r", 30.0, utc_now, pauses.append)
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
