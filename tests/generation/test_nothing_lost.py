"""Nothing lost, as a property: whatever interleaving of posts, retries,
trigger deliveries (lost, duplicated, racing), generators killed mid-answer,
sweeps and the passing of time, once the sweeper has had its turns every
user message is followed by an answer that is final (complete or failed),
a complete answer holds its text exactly once, and no chunk is left.

On the real emulator with a fake clock: the engine, the turns and the
sweeper all take `now`. The trigger is played by the test: every write that
makes an answer `ready` queues a delivery, which an action runs, drops or
duplicates.
"""

from __future__ import annotations

import threading
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pytest
from conftest import PROJECT, _clear_firestore
from google.cloud.firestore import FieldFilter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardchat.access.ratelimit import Limits
from cardchat.chat.turns import READY_LEASE, post_message, retry_message
from cardchat.errors import FailedPrecondition
from cardchat.generation.engine import generate, lease_seconds
from cardchat.generation.sweeper import sweep
from cardchat.schema.documents import CHAT_MESSAGES, LIVE_STATUSES
from cardchat.schema.documents import now as utc_now
from engine_support import OFFLINE_ANSWER, chunks_left, make_chat, quick
from fault_support import die_mid_answer

pytestmark = pytest.mark.emulator
__all__ = ["quick"]  # fixtures, used by name

CHAT = "chat1"
OWNER = "u1"
UNLIMITED = Limits(per_minute=100_000, daily_tokens=10**12)
DEAD_TEXT = ["Half an answer ", "from a run that died"]
#: Settling rounds after the actions: each advances past every lease, sweeps
#: and runs what the sweep delivers; a re-driven answer that dies again is
#: failed by the next, so two are always enough, and a few more cost nothing.
SETTLE_ROUNDS = 4


@dataclass
class World:
    db: object
    now: datetime
    deliveries: list[str] = field(default_factory=list)  # trigger events not yet run

    def clock(self) -> datetime:
        return self.now

    def answers(self) -> list[tuple[str, dict]]:
        docs = self.db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", CHAT)).stream()
        return sorted(((d.id, d.to_dict()) for d in docs), key=lambda m: m[1]["message_index"])

    def last_answer(self) -> str | None:
        found = [mid for mid, m in self.answers() if m["role"] == "assistant"]
        return found[-1] if found else None


def _post(w: World) -> None:
    with suppress(FailedPrecondition):  # the last answer is not finished: refused, as the SPA is told
        w.deliveries.append(post_message(w.db, OWNER, CHAT, "And then?", now=w.now, limits=UNLIMITED))


def _retry(w: World) -> None:
    last = w.last_answer()
    with suppress(FailedPrecondition):  # complete, or still running under a live lease
        w.deliveries.append(retry_message(w.db, OWNER, last, now=w.now, limits=UNLIMITED))


def _deliver(w: World) -> None:
    if w.deliveries:
        generate(w.db, w.deliveries.pop(0), now=w.clock)


def _deliver_twice(w: World) -> None:
    """The same event delivered twice at once: two generators race for it."""
    if w.deliveries:
        target = w.deliveries.pop(0)
        racers = [threading.Thread(target=generate, args=(w.db, target), kwargs={"now": w.clock}) for _ in range(2)]
        for t in racers:
            t.start()
        for t in racers:
            t.join(120)


def _kill(w: World) -> None:
    """The delivery's generator claims the answer, streams a little and is killed."""
    if w.deliveries:
        target = w.deliveries.pop(0)
        status = w.db.collection(CHAT_MESSAGES).document(target).get().get("status")
        if status == "ready":
            die_mid_answer(w.db, target, w.now + timedelta(seconds=lease_seconds()), DEAD_TEXT)


def _lose(w: World) -> None:
    if w.deliveries:
        w.deliveries.pop(0)  # a trigger that never ran (failed cold start)


def _sweep(w: World) -> None:
    w.deliveries += sweep(w.db, now=w.clock).redriven  # each re-drive is a write that fires the trigger


def _tick(seconds: int):
    def tick(w: World) -> None:
        w.now += timedelta(seconds=seconds)

    tick.__name__ = f"tick_{seconds}s"
    return tick


ACTIONS = [_post, _retry, _deliver, _deliver_twice, _kill, _lose, _sweep, _tick(10), _tick(45), _tick(150)]


def _settle(w: World) -> None:
    """What happens when nobody acts any more: the leases run out, the sweeper runs, its deliveries run."""
    for _ in range(SETTLE_ROUNDS):
        w.now += timedelta(minutes=10)
        _sweep(w)
        while w.deliveries:
            _deliver(w)


def _check(w: World) -> None:
    messages = [m for _, m in w.answers()]
    # the chat's first question and its answer at least: a query that found nothing checks nothing
    assert {m["role"] for m in messages} == {"user", "assistant"}, messages
    for m in messages:
        assert m["status"] not in LIVE_STATUSES, m
    for user in (m for m in messages if m["role"] == "user"):
        after = [m for m in messages if m["message_index"] == user["message_index"] + 1]
        assert len(after) == 1 and after[0]["role"] == "assistant", user
    for m in messages:
        if m["role"] == "assistant" and m["status"] == "complete":
            assert m["content"] == OFFLINE_ANSWER  # never a dead run's text, never twice
        elif m["role"] == "assistant":
            assert m["content"] in ("", "".join(DEAD_TEXT)), m
    assert chunks_left(w.db) == 0


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,  # the same interleavings on every run: CI never meets a new one by chance
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(actions=st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=12))
def test_every_question_ends_with_a_final_answer_and_no_chunk_is_left(db, firestore_host, actions):
    _clear_firestore(firestore_host, PROJECT)
    w = World(db, utc_now())
    first = make_chat(db, CHAT, owner=OWNER)
    # its ready lease, as every stub gets one (turns.question_and_stub)
    db.collection(CHAT_MESSAGES).document(first).update({"lease_expires": w.now + READY_LEASE})
    w.deliveries.append(first)
    for act in actions:
        act(w)
    _settle(w)
    _check(w)
