"""run_in_transaction: an abort (a lock that timed out, on a read or on the
commit) runs the whole body again; a refusal from the body does not."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as gexc
from google.cloud import firestore

from cardchat.repo.transactions import commit_batch, run_in_transaction

pytestmark = pytest.mark.emulator


class Refused(Exception):
    pass


def _counter(db: firestore.Client, aborts: int, exc: BaseException) -> tuple[list[int], object]:
    ref = db.collection("tx_test").document("n")
    calls: list[int] = []

    def body(tx: firestore.Transaction) -> int:
        snap = ref.get(transaction=tx)
        calls.append(1)
        if len(calls) <= aborts:
            raise exc  # what the store raises when a lock times out
        value = (snap.get("value") if snap.exists else 0) + 1
        tx.set(ref, {"value": value})
        return value

    return calls, body


def test_an_abort_on_a_read_runs_the_body_again(db):
    calls, body = _counter(db, 2, gexc.Aborted("Transaction lock timeout."))
    assert run_in_transaction(db, body) == 1
    assert len(calls) == 3
    assert db.collection("tx_test").document("n").get().get("value") == 1


def test_spent_sdk_attempts_are_an_abort_too(db):
    spent = ValueError("Failed to commit transaction in 1 attempts.")
    spent.__cause__ = gexc.Aborted("Transaction lock timeout.")
    calls, body = _counter(db, 1, spent)
    assert run_in_transaction(db, body) == 1
    assert len(calls) == 2


def test_a_refusal_propagates_at_once_and_writes_nothing(db):
    calls, body = _counter(db, 5, Refused("no"))
    with pytest.raises(Refused):
        run_in_transaction(db, body)
    assert len(calls) == 1
    assert not db.collection("tx_test").document("n").get().exists


def test_a_value_error_of_the_body_is_not_retried(db):
    calls, body = _counter(db, 5, ValueError("bad input"))
    with pytest.raises(ValueError, match="bad input"):
        run_in_transaction(db, body)
    assert len(calls) == 1


def test_patience_bounds_the_retries(db):
    calls, body = _counter(db, 10_000, gexc.Aborted("Transaction lock timeout."))
    with pytest.raises(gexc.Aborted):
        run_in_transaction(db, body, patience_s=0.0)
    assert len(calls) == 1


def test_a_lost_outcome_is_tried_again_only_for_a_body_that_knows_its_own_commit(db):
    """A cancelled call may have landed: only a body that recognises its landed commit may run again."""
    spent = ValueError("Failed to commit transaction in 1 attempts.")
    spent.__cause__ = gexc.Cancelled("call already cancelled")
    calls, body = _counter(db, 1, spent)
    with pytest.raises(ValueError):
        run_in_transaction(db, body)
    assert len(calls) == 1
    calls, body = _counter(db, 1, gexc.Cancelled("call already cancelled"))
    assert run_in_transaction(db, body, ambiguous=True) == 1
    assert len(calls) == 2


class LandsThenLosesItsOutcome:
    """A real write batch whose first commit lands and then reads as cancelled, as an overloaded
    emulator answers a commit it carried out."""

    def __init__(self, batch: firestore.WriteBatch) -> None:
        self.batch, self.commits = batch, 0

    def commit(self) -> None:
        self.commits += 1
        self.batch.commit()
        if self.commits == 1:
            raise gexc.Cancelled("call already cancelled")


def test_a_repeatable_batch_is_sent_again_after_a_lost_outcome(db):
    ref = db.collection("tx_test").document("gone")
    ref.set({"value": 1})
    batch = db.batch()
    batch.delete(ref)
    losing = LandsThenLosesItsOutcome(batch)
    commit_batch(losing)
    assert losing.commits == 2
    assert not ref.get().exists
