"""Batched embedding: what embedCard does with a card write.

One model call per card (a trigger each) embedded an import far slower than
MiniLM embeds texts in batches (`scripts/bench embed_burst`). So a trigger only records
its card in the owner's queue (repo/embed_queue.py), then:

- a live worker notice for the owner means a worker is draining that queue:
  the trigger returns, its card will be in one of that worker's batches;
- otherwise the trigger becomes the worker: it takes up to BATCH queued
  cards (leased, so no card is embedded by two workers), embeds those whose
  stored vector is not fresh in one model call, stores the vectors, removes
  the entries not written again meanwhile, counts the owner's progress, and
  takes again until the queue is empty or its time is up; a worker whose
  time is up with cards still queued hands over (`embed_queue.hand_over`):
  the handover's trigger starts a fresh worker, so a burst always finishes.

No card is lost between the two: a trigger writes its entry before it looks
for a notice, and a worker removes its notice before its last look at the
queue, so either the trigger saw no notice (and drains itself) or the
worker's last look finds the entry. A crashed worker's notice and leases
run out (NOTICE, LEASE); the owner's next card write drains again, and
`python -m cardchat backfill` embeds whatever is left.

Over a per-user card quota (embeddings/card_quota.py) a card is not embedded: the batch
records why (repo/embed_quota.py), and a worker with room (a raised limit,
deleted cards, a later minute) takes it back when its queue is empty.

`batch_stored` is the one place where a finished batch is known (owner,
changed cards and their vectors, deletions): the retrieval index hooks in there.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from google.api_core import exceptions as gexc

from ..embeddings.base import Embedder
from ..embeddings.card_quota import CARD_LIMIT, EMBEDDING_SKIPS, CardQuota, skip_id
from ..embeddings.text import embeddable_and_hash
from ..schema.documents import CARD_EMBEDDINGS, Card, now
from ..schema.embedding_queue import EMBED_TIMEOUT_S, EMBEDDING_WORKERS, WorkerNotice
from . import embed_queue as queue
from . import embed_quota
from .cards import load_cards, read_many
from .embed_pace import Pace
from .embeddings import embed_and_store, load_embeddings
from .retrieval_index import shards
from .retrieval_index.changes import Change, apply_changes
from .transactions import run_in_transaction

if TYPE_CHECKING:
    import numpy as np
    from google.cloud import firestore

log = logging.getLogger(__name__)

#: Cards per take and model call: MiniLM runs them as two 32-text batches;
#: a take, a batch read and two batch writes are spread over 64 cards. Quick
#: batches grow (repo/embed_pace.py), so that the owner's documents stay cool.
#: CARDCHAT_EMBED_BATCH overrides it (scripts/bench compares 1, unbatched).
BATCH = 64
#: How long a taken entry stays a worker's: far beyond a batch.
LEASE = timedelta(seconds=120)
#: How long a worker notice holds without renewal (renewed every batch).
NOTICE = timedelta(seconds=60)
#: How far back a worker looks for the owner's cards written without a fresh
#: vector whose triggers have not come yet (_Sweep).
SWEEP_BACK = timedelta(seconds=120)
#: A worker stops taking after this long, two minutes inside embedCard's
#: limit, and hands the rest over to a fresh worker (embed_queue.hand_over).
DRAIN_BUDGET_S = EMBED_TIMEOUT_S - 120.0

#: Tries of a failing batch, and the pause before the second (longer before each next): all within LEASE.
BATCH_ATTEMPTS = 3
BATCH_PAUSE_S = 2.0

Clock = Callable[[], datetime]


def on_card_written(
    db: firestore.Client, card_id: str, before: Card | None, after: Card | None, embedder: Embedder, clock: Clock = now
) -> str:
    """embedCard's body. Returns what it did: "unchanged", "queued" (a worker
    has it), or "drained n" (this call embedded n cards)."""
    # Tags, visibility, `updated` only, or an event a worker's batch already
    # covered (delivered late or twice): one read, no model call, no write.
    if after is not None and _stored_fresh(db, card_id, after, embedder.model_id):
        if before is not None and _access_changed(before, after):
            # No batch will come for a text that did not change, but the index filters on these fields.
            vector = load_embeddings(db, {card_id: embeddable_and_hash(after.title, after.body)[1]}, embedder.model_id)
            apply_changes(db, after.owner, [Change(card_id, after, vector.get(card_id))], embedder.model_id)
            return "reindexed"
        return "unchanged"
    card = after or before
    if card is None:
        return "unchanged"
    if after is None:
        db.collection(CARD_EMBEDDINGS).document(card_id).delete()  # at once; the queue entry settles a racing batch
        if not _indexed(db, card.owner) and not queue.worker_alive(db, card.owner, clock()):
            # No index holds it and no batch in flight could store its vector again (a deleted
            # account's cards: their heads and worker notice go first), so nothing is left to do
            # but its skip record, and a worker would write bookkeeping for someone gone.
            db.collection(EMBEDDING_SKIPS).document(skip_id(card.owner, card_id)).delete()
            return "unindexed"
    queue.enqueue(db, card_id, card.owner, clock())
    return work(db, card.owner, embedder, clock)


def work(
    db: firestore.Client, owner: str, embedder: Embedder, clock: Clock = now, budget_s: float | None = None
) -> str:
    """Become the owner's worker and drain their queue, unless a live worker
    is there: "queued", or "drained n". embedCard after queueing its card, and
    resumeEmbedding when a worker ran out of time, call it."""
    worker = uuid.uuid4().hex
    if not take_notice(db, owner, worker, clock()):
        return "queued"
    budget = DRAIN_BUDGET_S if budget_s is None else budget_s
    made = drain(
        db, owner, embedder, worker, clock=clock, budget_s=budget, batch=batch_size(), adaptive=not _size_set()
    )
    return f"drained {made}"


def _indexed(db: firestore.Client, owner: str) -> bool:
    """Whether the owner has a retrieval index (either partition) a deleted card could be in."""
    return any(shards.read_head(db, owner, public) is not None for public in (False, True))


def batch_size() -> int:
    return int(os.environ["CARDCHAT_EMBED_BATCH"]) if _size_set() else BATCH


def _size_set() -> bool:
    wanted = os.environ.get("CARDCHAT_EMBED_BATCH", "")
    return wanted.isdigit() and int(wanted) > 0


def _access_changed(before: Card, after: Card) -> bool:
    """What the retrieval index keeps of a card besides its text changed (who may read it, its tags)."""
    return (before.visibility, before.viewers, before.tags) != (after.visibility, after.viewers, after.tags)


def _stored_fresh(db: firestore.Client, card_id: str, card: Card, model_id: str) -> bool:
    ref = db.collection(CARD_EMBEDDINGS).document(card_id)
    snap = ref.get(field_paths=["model", "text_hash", "owner"])
    data = snap.to_dict() if snap.exists else None
    h = embeddable_and_hash(card.title, card.body)[1]
    if data is None or data.get("model") != model_id or data.get("text_hash") != h:
        return False
    if data.get("owner") != card.owner:  # a vector stored before vectors carried their owner
        ref.update({"owner": card.owner})
    return True


def take_notice(db: firestore.Client, owner: str, worker: str, at: datetime) -> bool:
    """Become the owner's worker unless a live one is there. In a burst a live
    notice is the common case, answered by one read: no create refused (the
    emulator logs each with a stack trace) and no transaction, where a plain
    read is enough since the trigger queued its card before it looked."""
    if queue.worker_alive(db, owner, at):
        return False
    ref = db.collection(EMBEDDING_WORKERS).document(owner)
    notice = WorkerNotice(worker=worker, alive_until=at + NOTICE).to_dict()
    try:
        ref.create(notice)  # no notice: the owner's first write in a while
        return True
    except gexc.AlreadyExists:
        pass

    def body(tx: firestore.Transaction) -> bool:
        snap = ref.get(transaction=tx)
        if queue.notice_live(snap.to_dict() if snap.exists else None, at):
            return False
        tx.set(ref, notice)
        return True

    return run_in_transaction(db, body)


def drain(
    db: firestore.Client,
    owner: str,
    embedder: Embedder,
    worker: str,
    clock: Clock = now,
    budget_s: float = DRAIN_BUDGET_S,
    batch: int = BATCH,
    adaptive: bool = True,
) -> int:
    """Embeds the owner's queue batch by batch as `worker` (holding the
    notice); returns the vectors made. `adaptive`: the batch grows while
    batches are quick (repo/embed_pace.py)."""
    stop_at = time.monotonic() + budget_s
    made = 0
    pace = Pace(batch, NOTICE, adaptive)
    pace.announced(clock())  # take_notice wrote it
    queue.record_progress(db, owner, 0, clock())
    sweep = _Sweep(clock() - SWEEP_BACK)
    while True:
        pace.batch_started()
        taken = queue.take(db, owner, worker, clock(), LEASE, pace.batch)
        if not taken and (
            sweep.queue_stale(db, owner, embedder.model_id, clock(), pace.batch)
            or _requeue_skipped(db, owner, clock(), pace.batch)
        ):
            # What it queued is pending until its batch is counted: the owner's progress never reads
            # "nothing pending" while a batch it has not counted yet is in flight.
            queue.record_progress(db, owner, 0, clock())
            continue
        if not taken:
            queue.retire(db, owner)
            # A trigger that saw the notice wrote its entry before it looked: this look finds it.
            taken = queue.take(db, owner, worker, clock(), LEASE, pace.batch)
            if not taken:
                queue.record_progress(db, owner, 0, clock())
                return made
            _announce(db, owner, worker, pace, clock())  # a second worker meanwhile is harmless: leases
        made += _run_batch_tried(db, owner, taken, embedder, clock)
        pace.batch_done()
        if time.monotonic() > stop_at:
            # Past the budget, inside embedCard's limit: a fresh worker (a new invocation) takes the rest.
            if queue.pending_count(db, owner):
                queue.hand_over(db, owner, worker, clock())
                log.warning("embedding worker for %s handed over at its time budget; %d cards made", owner, made)
            else:
                queue.retire(db, owner)
            return made
        if pace.notice_due(clock()):
            _announce(db, owner, worker, pace, clock())


def _announce(db: firestore.Client, owner: str, worker: str, pace: Pace, at: datetime) -> None:
    queue.announce(db, owner, worker, at + NOTICE)
    pace.announced(at)


def _requeue_skipped(db: firestore.Client, owner: str, at: datetime, limit: int) -> int:
    """Skipped cards go back into the queue while the owner has room for
    them (the limit raised, cards deleted, a later minute); returns how many.
    Each batch taken back embeds a card or moves one from the minute's limit
    to the card limit, which is taken back only with room: this ends."""
    skipped = embed_quota.skipped_cards(db, owner, limit)
    if not skipped:
        return 0
    at_limit = [cid for cid, reason in skipped.items() if reason == CARD_LIMIT]
    cards, writes = embed_quota.room(db, owner, at, CardQuota.from_env(), cards=bool(at_limit))
    back = ([cid for cid in skipped if cid not in at_limit] + at_limit[: max(0, cards)])[: max(0, writes)]
    if back:
        queue.enqueue_many(db, dict.fromkeys(back, owner), at)
    return len(back)


class _Sweep:
    """The owner's recently written cards, page by page: a worker queues the
    ones without a fresh vector itself instead of waiting for their triggers.
    Events can lag far behind a burst's writes (the Functions emulator
    delivers them one at a time: `scripts/bench embed_burst`); the triggers that arrive
    later find their vector fresh (one read)."""

    def __init__(self, since: datetime) -> None:
        self.since = since
        self.cursor: Any = None

    def queue_stale(self, db: firestore.Client, owner: str, model_id: str, at: datetime, limit: int) -> int:
        """Queues the stale cards among the next pages; returns how many (0: the sweep is done)."""
        while True:
            cards, self.cursor = queue.written_since(db, owner, self.since, self.cursor, limit)
            if not cards:
                return 0
            stored = dict(read_many(db, CARD_EMBEDDINGS, list(cards), _hash_of(model_id), ["model", "text_hash"]))
            stale = [cid for cid, c in cards.items() if stored.get(cid) != embeddable_and_hash(c.title, c.body)[1]]
            if stale:
                queue.enqueue_many(db, dict.fromkeys(stale, owner), at)
                return len(stale)


def _run_batch(
    db: firestore.Client, owner: str, taken: dict[str, str], embedder: Embedder, clock: Clock, made: set[str]
) -> int:
    """One try of a batch; `made`: the cards whose vectors this batch's earlier tries stored (filled here)."""
    ids = list(taken)
    cards = load_cards(db, ids)
    gone = [card_id for card_id in ids if card_id not in cards]
    if gone:
        batch = db.batch()
        for card_id in gone:
            batch.delete(db.collection(CARD_EMBEDDINGS).document(card_id))
        batch.commit()
    # Read, not load_embeddings's cache: a card deleted and written back with
    # the same text (the editor's undo) has its vector cached but not stored.
    found = dict(read_many(db, CARD_EMBEDDINGS, list(cards), lambda _id, data: data, ["model", "text_hash"]))
    hash_of = _hash_of(embedder.model_id)
    stored = {cid: hash_of(cid, data) for cid, data in found.items()}
    todo = {cid: c for cid, c in cards.items() if stored.get(cid) != embeddable_and_hash(c.title, c.body)[1]}
    # a card with any vector (another model's, a stale one) keeps its place under the card limit
    decided = embed_quota.admit(db, owner, list(todo), set(found), clock(), CardQuota.from_env())
    vectors = embed_and_store(db, {cid: todo[cid] for cid in decided.admitted}, embedder) if decided.admitted else {}
    made.update(vectors)
    # Queued with its vector already fresh: stored by an earlier try that failed before the index
    # took it, or by a worker that died there. The index gets that vector, not an entry without one.
    fresh = {cid: h for cid, h in stored.items() if h is not None and cid in cards and cid not in todo}
    carried = load_embeddings(db, fresh, embedder.model_id) if fresh else {}
    batch_stored(db, owner, cards, {**carried, **vectors}, gone, embedder.model_id)
    embed_quota.record(db, owner, ids, decided.skipped, clock())
    again = queue.finish(db, taken)
    counted = len(made & set(cards))
    # One write of the owner's progress per batch, its count and what is left together (the page
    # counts again on each write): its `pending` never reaches 0 without this batch counted.
    queue.record_progress(db, owner, counted, clock())
    log.info(
        "embedded %d of %s's cards (%d deleted, %d written again meanwhile, %d over a card limit)",
        *(counted, owner, len(gone), len(again), len(decided.skipped)),
    )
    return counted


def _run_batch_tried(db: firestore.Client, owner: str, taken: dict[str, str], embedder: Embedder, clock: Clock) -> int:
    """A batch that fails (a store or embedder error) is tried again, its cards still leased to this
    worker: once the last trigger has come, no later one would start a worker for what is left.
    Vectors a failed try stored are not made again, but still counted and indexed."""
    made: set[str] = set()
    for attempt in range(1, BATCH_ATTEMPTS):
        try:
            return _run_batch(db, owner, taken, embedder, clock, made)
        except Exception as err:
            log.warning("embedding batch for %s failed (%s: %s); trying it again", owner, type(err).__name__, err)
            time.sleep(BATCH_PAUSE_S * attempt)
    return _run_batch(db, owner, taken, embedder, clock, made)  # the last try: what it raises ends the worker


def _hash_of(model_id: str) -> Callable[[str, dict[str, Any]], str | None]:
    def text_hash(_card_id: str, data: dict[str, Any]) -> str | None:
        return str(data["text_hash"]) if data.get("model") == model_id and data.get("text_hash") else None

    return text_hash


def batch_stored(
    db: firestore.Client,
    owner: str,
    cards: dict[str, Card],
    vectors: dict[str, np.ndarray],
    deleted: list[str],
    model_id: str,
) -> None:
    """A batch's vectors are stored (`cards`: the batch's cards as they are now;
    `vectors`: card_id -> its new vector, for those whose text changed;
    `deleted`: cards gone, their vectors removed). Called once per batch,
    before its queue entries are removed: if the owner's retrieval index
    fails to take the batch, the batch stays queued and is
    done again. One index version for the whole batch, not one per card."""
    changes = [Change(cid, card, vectors.get(cid)) for cid, card in cards.items()]
    changes += [Change(cid, None) for cid in deleted]
    apply_changes(db, owner, changes, model_id)
