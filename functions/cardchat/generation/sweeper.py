"""The answer sweeper: no answer stays `ready` or `streaming` once the run
behind it is gone, whether or not anyone has the chat open.

A run holds a lease it renews while it streams (engine.py); a stub waits
READY_LEASE for a run to take it. A lease that ran out means the function died
(killed, out of memory, past its time limit, its Firestore writes failing)
or the trigger's delivery was lost. The sweeper, a scheduled function in
production (main.sweepAnswers, every SWEEP_INTERVAL_S) and a loop of
`python -m cardchat sweep` beside the emulators, finds those answers with
one indexed query and settles each in one transaction:

- re-drives it, at most MAX_REDRIVES times per attempt: back to `ready` with
  its chunks deleted, which fires generateAnswer again; the new run starts
  from the beginning, so no text is ever shown twice;
- else fails it, keeping the text its chunks held, under a fixed headline
  (providers/headlines.py), the chunks deleted.

The dead run's token reservation is never settled by it: it expires after
access/ratelimit.HOLD_TTL and is charged at its bound, which covers the re-driven
run too (that run settles an attempt nothing reserved).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat.chat.turns import READY_LEASE, is_stalled
from cardchat.providers.headlines import headline
from cardchat.repo import answer_tasks
from cardchat.repo import stalled_answers as repo
from cardchat.schema.documents import STALLED_WITHOUT_LEASE
from cardchat.schema.documents import now as utc_now

if TYPE_CHECKING:
    from cardchat.repo.db import Db
    from cardchat.schema.messages import ChatMessage

log = logging.getLogger(__name__)

#: How often production runs the sweeper (main.sweepAnswers' schedule) and
#: scripts/dev's loop calls it.
SWEEP_INTERVAL_S = 60
#: Re-drives of one attempt before the sweeper fails it instead: a run that
#: dies twice on the same answer will likely die again.
MAX_REDRIVES = 1
#: Answers settled per sweep at most; the rest wait for the next one.
BATCH = 100
INTERRUPTED = headline(None, "interrupted")
NOT_STARTED = headline(None, "not_started")


@dataclass
class Sweep:
    """What one sweep did: the ids it re-drove and failed."""

    found: int = 0
    redriven: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def sweep(db: Db, now: Callable[[], datetime] = utc_now, batch: int = BATCH) -> Sweep:
    """Settle every answer whose lease ran out by `now()`."""
    when = now()
    found = repo.expired(db, when, batch)
    done = Sweep(found=len(found))
    for message_id, _ in found:
        outcome = _settle_one(db, message_id, when)
        if outcome is None:
            continue  # moved on since the query: a late renewal, a finish, a retry
        (done.redriven if outcome == "redriven" else done.failed).append(message_id)
        log.warning("sweep: answer %s %s (its lease ran out)", message_id, outcome)
    return done


def sweep_leaseless(db: Db, now: Callable[[], datetime] = utc_now) -> Sweep:
    """Settle the answers left live from before leases existed, which `sweep`'s indexed query never
    finds (their `lease_expires` is missing): a one-off, run on deploy (`python -m cardchat sweep`
    runs it before its first sweep); nothing writes a live answer without a lease any more."""
    when = now()
    found = repo.leaseless(db, STALLED_WITHOUT_LEASE)
    done = Sweep(found=len(found))
    for message_id in found:
        outcome = _settle_one(db, message_id, when)
        if outcome is not None:
            (done.redriven if outcome == "redriven" else done.failed).append(message_id)
            log.warning("sweep: answer %s %s (it held no lease)", message_id, outcome)
    return done


def _settle_one(db: Db, message_id: str, now: datetime) -> str | None:
    """ "redriven" or "failed"; None when it needed neither any more."""
    outcome: list[str] = []
    if not repo.settle(db, message_id, lambda msg, partial: _decide(msg, partial, now, outcome)):
        return None
    if outcome[0] == "redriven":  # back to `ready` in a commit that landed: its new run
        answer_tasks.start(db, [message_id])
    return outcome[0]


def _decide(msg: ChatMessage, partial: str, now: datetime, outcome: list[str]) -> dict[str, Any] | None:
    """The new fields of a stalled answer; None if it is not stalled any more.
    `outcome` says which way it went (cleared first: a transaction may retry)."""
    outcome.clear()
    if not is_stalled(msg, now):
        return None
    redrives = msg.redrives
    if redrives < MAX_REDRIVES:
        outcome.append("redriven")
        return {
            "status": "ready",
            "content": "",
            "error": None,
            "run_id": None,
            "lease_expires": now + READY_LEASE,
            "provider_wait": None,
            "redrives": redrives + 1,
        }
    outcome.append("failed")
    started = msg.status == "streaming"
    return {
        "status": "failed",
        "content": partial if started else "",
        "error": INTERRUPTED if started else NOT_STARTED,
        "lease_expires": None,
        "provider_wait": None,
    }
