"""The answer sweeper on the real emulator: an answer whose run died is
re-driven once (then fails, its partial text kept, under a fixed headline), a
stub nothing took is delivered again, a live run is left alone, and a
sweep that finds nothing costs one query on a declared index."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest

from cardchat.chat.turns import READY_LEASE, post_message, retry_message
from cardchat.generation.engine import generate
from cardchat.generation.sweeper import INTERRUPTED, MAX_REDRIVES, NOT_STARTED, SWEEP_INTERVAL_S, sweep
from cardchat.repo import messages, stalled_answers
from cardchat.schema.documents import CHAT_MESSAGES_STREAMING, SCRATCH_TTL
from cardchat.schema.documents import now as utc_now
from engine_support import OFFLINE_ANSWER, chunks_left, make_chat, message, quick
from fault_support import RpcCount, die_mid_answer

pytestmark = pytest.mark.emulator
__all__ = ["quick"]  # fixtures, used by name
ROOT = Path(__file__).resolve().parents[2]


def test_a_sweep_that_finds_nothing_costs_one_query_and_writes_nothing(db):
    for i in range(3):  # answers complete, streaming under a live lease, and waiting to be taken
        generate(db, make_chat(db, f"done{i}"))
    live = make_chat(db, "live")
    die_mid_answer(db, live, utc_now() + timedelta(minutes=5), ["Tides"])
    make_chat(db, "waiting")
    with RpcCount(db) as rpcs:
        done = sweep(db)
    assert (done.found, done.redriven, done.failed) == (0, [], [])
    assert dict(rpcs.calls) == {"run_query": 1}


def test_the_sweepers_query_is_served_by_a_declared_composite_index(db):
    query = stalled_answers.expired_query(db, utc_now(), 10)._to_protobuf()
    filters = [f.field_filter for f in query.where.composite_filter.filters]
    ops = {f.field.field_path: f.op.name for f in filters}
    assert ops == {"status": "IN", "lease_expires": "LESS_THAN_OR_EQUAL"}
    wanted = [("status", "ASCENDING"), ("lease_expires", "ASCENDING")]
    assert [(o.field.field_path, o.direction.name) for o in query.order_by] == [wanted[1]]
    declared = json.loads((ROOT / "firestore.indexes.json").read_text())["indexes"]
    assert any(
        ix["collectionGroup"] == query.from_[0].collection_id
        and [(f["fieldPath"], f.get("order")) for f in ix["fields"]] == wanted
        for ix in declared
    )


def test_main_schedules_the_sweeper_at_its_interval():
    triggers = (ROOT / "functions" / "endpoints" / "triggers.py").read_text()
    found = re.search(r'on_schedule\(schedule="every (\d+) minutes?"', triggers)
    assert found is not None and int(found.group(1)) * 60 == SWEEP_INTERVAL_S


def test_a_dead_run_is_re_driven_and_its_chunks_never_reach_the_new_answer(db):
    stub = make_chat(db)
    lease_end = utc_now() + timedelta(seconds=30)
    die_mid_answer(db, stub, lease_end, ["Old words ", "from the dead run"])

    assert sweep(db, now=lambda: lease_end - timedelta(seconds=1)).found == 0  # its lease still runs
    done = sweep(db, now=lambda: lease_end)
    assert done.redriven == [stub] and done.failed == []
    msg = message(db, stub)
    assert (msg["status"], msg["content"], msg["run_id"], msg["redrives"]) == ("ready", "", None, 1)
    assert msg["lease_expires"] == lease_end + READY_LEASE
    assert chunks_left(db) == 0

    assert generate(db, stub) == "complete"  # what the trigger on that write runs
    done_msg = message(db, stub)
    assert done_msg["content"] == OFFLINE_ANSWER and done_msg["attempts"] == 2
    post_message(db, "u1", "chat1", "And the next question?")  # the chat takes a new turn


def test_a_run_that_dies_again_fails_with_its_text_kept_and_a_retry_may_re_drive_again(db):
    stub = make_chat(db)
    now = utc_now()
    for attempt in range(MAX_REDRIVES + 1):
        now += timedelta(minutes=5)
        die_mid_answer(db, stub, now, ["Partial ", f"answer {attempt}"])
        sweep(db, now=lambda at=now: at)
    failed = message(db, stub)
    assert (failed["status"], failed["error"]) == ("failed", INTERRUPTED)
    assert failed["content"] == f"Partial answer {MAX_REDRIVES}" and failed["lease_expires"] is None
    assert chunks_left(db) == 0
    assert sweep(db, now=lambda: now + timedelta(hours=1)).found == 0  # failed is final

    retry_message(db, "u1", stub, now=now)
    assert message(db, stub)["redrives"] == 0
    die_mid_answer(db, stub, now + timedelta(minutes=1), ["Again"])
    assert sweep(db, now=lambda: now + timedelta(minutes=1)).redriven == [stub]


def test_a_stub_nobody_took_is_delivered_again_then_failed_as_not_started(db):
    stub = make_chat(db)
    ready_until = utc_now() + READY_LEASE
    db.collection("chat_messages").document(stub).update({"lease_expires": ready_until})
    assert sweep(db, now=lambda: ready_until).redriven == [stub]
    again = message(db, stub)
    assert again["status"] == "ready" and again["lease_expires"] == ready_until + READY_LEASE
    later = ready_until + READY_LEASE
    assert sweep(db, now=lambda: later).failed == [stub]
    failed = message(db, stub)
    assert (failed["status"], failed["error"], failed["content"]) == ("failed", NOT_STARTED, "")


def test_a_run_that_renewed_after_the_query_is_left_alone(db):
    stub = make_chat(db)
    lease_end = utc_now() + timedelta(seconds=30)
    run_id = die_mid_answer(db, stub, lease_end, ["Still going"])
    found = stalled_answers.expired(db, lease_end, 10)
    assert [m for m, _ in found] == [stub]
    messages.renew_lease(db, stub, run_id, lease_end + timedelta(seconds=30))  # the run was only slow
    assert sweep(db, now=lambda: lease_end).redriven == []
    msg = message(db, stub)
    assert (msg["status"], msg["run_id"]) == ("streaming", run_id) and chunks_left(db) == 1


def test_chunks_carry_an_expiry_that_a_declared_ttl_policy_deletes_them_by(db):
    """The backstop behind the sweeper: a chunk nothing deleted goes by Firestore's TTL."""
    stub = make_chat(db)
    die_mid_answer(db, stub, utc_now() + timedelta(seconds=30), ["Left behind"])
    chunk = messages.read_chunks(db, stub)[0]
    assert chunk["expires"] == chunk["timestamp"] + SCRATCH_TTL
    overrides = json.loads((ROOT / "firestore.indexes.json").read_text())["fieldOverrides"]
    policy = {"collectionGroup": CHAT_MESSAGES_STREAMING, "fieldPath": "expires", "ttl": True, "indexes": []}
    assert policy in overrides
