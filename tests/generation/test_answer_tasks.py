"""What starts generateAnswer: one Cloud Task per run asked for (a new turn, a retry, the
sweeper's re-drive), enqueued once the commit that makes the answer `ready` lands, through
the Cloud Tasks emulator to a recorder standing where the function would; the run's own
writes to the message (take_run, chunks and lease renewals, final write) ask for none."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import _clear_firestore
from google.cloud import firestore

from cardchat.chat.turns import post_message, question_and_stub, retry_message, start_answers
from cardchat.generation.answer_runs import message_of, run_answer
from cardchat.generation.sweeper import sweep
from cardchat.repo import answer_tasks
from cardchat.repo import messages as messages_repo
from cardchat.repo.messages import TurnDecision
from cardchat.schema.documents import REGION
from cardchat.schema.documents import now as utc_now
from cardchat.schema.messages import ChatMessage
from engine_support import OFFLINE_ANSWER, make_chat, message, quick
from fault_support import die_mid_answer

pytestmark = pytest.mark.functions
__all__ = ["quick"]  # fixtures, used by name
#: A project of these tests alone: its queue dispatches to the recorder, no other test's.
TASKS_PROJECT = "demo-cardchat-tasks"
#: A bound on a dispatch's arrival (not a pace).
ARRIVAL_S = 20


class Recorder:
    """Answers every dispatch 200 and keeps the task payloads it was sent."""

    def __init__(self) -> None:
        self.tasks: list[dict] = []
        self.arrived = threading.Condition()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with recorder.arrived:
                    recorder.tasks.append(body.get("data"))
                    recorder.arrived.notify_all()
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def messages(self, count: int) -> list[str]:
        """The answers of the first `count` tasks, once that many arrived."""
        give_up = time.monotonic() + ARRIVAL_S
        with self.arrived:
            while len(self.tasks) < count and time.monotonic() < give_up:
                self.arrived.wait(0.2)
            return [message_of(task) for task in self.tasks]


@pytest.fixture
def recorded(firestore_host):
    """(db, recorder): a Firestore client of TASKS_PROJECT, whose generateAnswer queue in the
    Cloud Tasks emulator dispatches to the recorder."""
    host = os.environ.get("CLOUD_TASKS_EMULATOR_HOST")
    if not host:
        pytest.fail("the Cloud Tasks emulator (CLOUD_TASKS_EMULATOR_HOST) is not running")
    recorder = Recorder()
    queue = f"http://{host}/projects/{TASKS_PROJECT}/locations/{REGION}/queues/{answer_tasks.QUEUE}"
    # One dispatch at a time: the queue then delivers in the order of enqueueing, so a marker
    # task enqueued last is a barrier behind every task asked for before it.
    config = {
        "defaultUri": f"http://127.0.0.1:{recorder.server.server_port}/",
        "retryConfig": {"maxAttempts": 1},
        "rateLimits": {"maxConcurrentDispatches": 1},
    }
    req = urllib.request.Request(
        queue, json.dumps(config).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    urllib.request.urlopen(req, timeout=10).read()
    _clear_firestore(firestore_host, TASKS_PROJECT)
    client = firestore.Client(project=TASKS_PROJECT)
    yield client, recorder
    client.close()
    recorder.server.shutdown()


def message_of_store(db, message_id: str) -> ChatMessage:
    return ChatMessage.from_dict(message(db, message_id))


def _new_chat(db) -> str:
    """A chat whose first answer's run is asked for as createChat asks for it (chat/turns.start_answers)."""
    stub = make_chat(db)
    start_answers(db, [(stub, message_of_store(db, stub))])
    return stub


def _answered_chat(db, recorder: Recorder) -> str:
    """A chat whose first answer, asked for as createChat asks, ran."""
    stub = _new_chat(db)
    assert recorder.messages(1) == [stub]
    assert run_answer(db, stub) == "complete"
    return stub


def test_a_follow_up_asks_for_one_run_and_its_run_asks_for_none(recorded):
    db, recorder = recorded
    first = _answered_chat(db, recorder)
    stub = post_message(db, "u1", "chat1", "And the tides?")
    assert recorder.messages(2) == [first, stub]

    assert run_answer(db, stub) == "complete"
    assert message(db, stub)["content"] == OFFLINE_ANSWER
    # A task the run's writes asked for was enqueued before run_answer returned: it arrives before the marker.
    answer_tasks.start(db, ["marker"])
    assert recorder.messages(3) == [first, stub, "marker"]


def test_the_store_writing_a_turn_asks_for_no_run_and_the_turn_asks_for_one_after_it(recorded):
    db, recorder = recorded
    first = _answered_chat(db, recorder)
    when = utc_now()

    def decide(chat, messages) -> TurnDecision:
        question, stub = question_and_stub("chat1", 2, "And the tides?", chat["model"], when)
        return TurnDecision(messages=[("q2", question), ("a3", stub)], chat_fields={"message_count": 4})

    messages_repo.append_turn(db, "chat1", decide, "a3")
    assert message(db, "a3")["status"] == "ready"
    # The marker, enqueued last, arrives behind any task the store's write asked for: there is none.
    answer_tasks.start(db, ["marker"])
    assert recorder.messages(2) == [first, "marker"]

    db.collection("chat_messages").document("a3").update({"status": "complete", "lease_expires": None})
    stub = post_message(db, "u1", "chat1", "And the moon?")
    answer_tasks.start(db, ["marker"])
    assert recorder.messages(4) == [first, "marker", stub, "marker"]  # one run, asked for once


def test_a_duplicate_delivery_runs_nothing(recorded):
    db, recorder = recorded
    _answered_chat(db, recorder)
    stub = post_message(db, "u1", "chat1", "And the tides?")
    assert run_answer(db, stub) == "complete"
    assert run_answer(db, stub) == "skipped"  # delivered again: take_run refuses it
    assert message(db, stub)["attempts"] == 1


def test_a_sweepers_re_drive_and_a_retry_each_ask_for_a_run(recorded):
    db, recorder = recorded
    stub = _new_chat(db)
    assert recorder.messages(1) == [stub]  # its task delivered, and its run dead, say
    lease_end = utc_now() + timedelta(seconds=30)
    die_mid_answer(db, stub, lease_end, ["Old words"])
    assert sweep(db, now=lambda: lease_end).redriven == [stub]
    assert recorder.messages(2) == [stub, stub]
    assert run_answer(db, stub) == "complete"

    db.collection("chat_messages").document(stub).update({"status": "failed", "lease_expires": None})
    retry_message(db, "u1", stub)
    assert recorder.messages(3) == [stub, stub, stub]


def test_a_task_that_names_no_answer_runs_nothing(recorded):
    db, _ = recorded
    assert [message_of(task) for task in (None, {}, {"message": 7}, "x")] == ["", "", "", ""]
    assert run_answer(db, "") == "skipped"
