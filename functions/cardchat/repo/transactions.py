"""Transactions that survive contention.

Server SDKs lock pessimistically (the emulator too): two transactions that
read the same chat document and then both write it deadlock until the lock
times out, and both abort. The SDK retries only an aborted commit, at once
and without a pause, so racers that collided once tend to collide again
(four concurrent posts to one chat exhausted its 5 attempts), and an abort
met while reading is not retried at all. A double click or two open tabs
must see one turn accepted and the others refused, never a failure, so
every read-modify-write transaction of the domain runs here: retried after
a jittered, growing pause until it lands or TX_PATIENCE_S have passed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from google.api_core import exceptions as gexc
from google.cloud import firestore

T = TypeVar("T")


class _Stored(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


S = TypeVar("S", bound=_Stored)

#: Longer than a few emulator lock timeouts; far shorter than a callable's deadline.
TX_PATIENCE_S = 30.0
_FIRST_PAUSE_S = 0.05
_MAX_PAUSE_S = 1.0


#: A commit that ended in one of these may or may not have landed (an overloaded emulator cancels calls).
AMBIGUOUS = (gexc.Cancelled, gexc.DeadlineExceeded, gexc.ServiceUnavailable)


def _aborted(exc: BaseException, ambiguous: bool = False) -> bool:
    # The SDK reports its spent attempts as a ValueError caused by the last Aborted.
    kinds = (gexc.Aborted, *AMBIGUOUS) if ambiguous else (gexc.Aborted,)
    return isinstance(exc, kinds) or (isinstance(exc, ValueError) and isinstance(exc.__cause__, kinds))


def run_in_transaction(
    db: firestore.Client,
    body: Callable[[firestore.Transaction], T],
    patience_s: float = TX_PATIENCE_S,
    *,
    ambiguous: bool = False,
) -> T:
    """`body(tx)` in a transaction, all of it again after an abort; what it
    raises itself (a refusal) propagates at once and nothing is written.
    `ambiguous`: also again after a commit that may have landed (AMBIGUOUS),
    for a body that finds its own landed commit when it reads."""
    give_up = time.monotonic() + patience_s
    pause = _FIRST_PAUSE_S
    transactional = firestore.transactional(body)
    while True:
        try:
            result: T = transactional(db.transaction(max_attempts=1))
            return result
        except (gexc.Aborted, *AMBIGUOUS, ValueError) as exc:
            if not _aborted(exc, ambiguous) or time.monotonic() > give_up:
                raise
        time.sleep(random.uniform(pause / 2, pause))
        pause = min(pause * 2, _MAX_PAUSE_S)


def update_document(
    db: firestore.Client,
    ref: firestore.DocumentReference,
    parse: Callable[[dict[str, Any] | None], S],
    change: Callable[[S], S],
) -> S:
    """`ref`'s document as `parse` reads it (None: there is none), `change`d and
    written back, in one transaction; if `change` raises (a refusal), nothing is written."""

    def body(tx: firestore.Transaction) -> S:
        snap = ref.get(transaction=tx)
        state = change(parse(snap.to_dict() if snap.exists else None))
        tx.set(ref, state.to_dict())
        return state

    return run_in_transaction(db, body)


#: Tries of an idempotent batch (commit_batch), and the pause before each retry.
BATCH_ATTEMPTS = 3
_BATCH_PAUSE_S = 0.5


def commit_batch(batch: firestore.WriteBatch) -> None:
    """Commit a batch whose writes are harmless to repeat (deletes, sets of the same values), again
    after an outcome lost in transit (AMBIGUOUS) or a lock timeout."""
    for attempt in range(1, BATCH_ATTEMPTS + 1):
        try:
            batch.commit()
            return
        except (gexc.Aborted, *AMBIGUOUS):
            if attempt == BATCH_ATTEMPTS:
                raise
            time.sleep(random.uniform(_BATCH_PAUSE_S / 2, _BATCH_PAUSE_S) * attempt)
