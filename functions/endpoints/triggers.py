"""The background functions: cards embedded as they are written (Firestore triggers), answers generated
as they are asked for (a task queue), and the sweeper that re-drives answers whose run died."""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any

from firebase_functions import firestore_fn, https_fn, options, scheduler_fn, tasks_fn

from cardchat.repo import answer_tasks
from cardchat.schema.documents import CARDS, GENERATE_TIMEOUT_S
from cardchat.schema.embedding_queue import EMBED_TIMEOUT_S, EMBEDDING_HANDOVERS
from endpoints.base import db, secrets_for

if TYPE_CHECKING:
    from firebase_functions.core import Change
    from google.cloud.firestore_v1 import DocumentSnapshot

    from cardchat.schema.documents import Card

    #: What a document trigger receives: the document before and after the write.
    DocumentWritten = firestore_fn.Event[Change[DocumentSnapshot[Any] | None]]

log = logging.getLogger("cardchat")


@firestore_fn.on_document_written(
    document=f"{CARDS}/{{cardId}}",
    memory=options.MemoryOption.GB_1,
    timeout_sec=EMBED_TIMEOUT_S,
    secrets=secrets_for("embedCard"),
)
def embedCard(event: DocumentWritten) -> None:
    """Keeps card_embeddings in step with cards, in batches: the card is queued, and the call
    that finds no worker for its owner drains the owner's queue (repo/embed_batches.py)."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo import embed_batches

    _below_answers()
    before, after = (_card_of(snap) for snap in (event.data.before, event.data.after))
    outcome = embed_batches.on_card_written(db(), event.params["cardId"], before, after, get_embedder())
    log.info("embedCard %s: %s", event.params["cardId"], outcome)


@firestore_fn.on_document_written(
    document=f"{EMBEDDING_HANDOVERS}/{{owner}}",
    memory=options.MemoryOption.GB_1,
    timeout_sec=EMBED_TIMEOUT_S,
    secrets=secrets_for("resumeEmbedding"),
)
def resumeEmbedding(event: DocumentWritten) -> None:
    """A worker out of time with cards still queued: a fresh one takes the rest (repo/embed_batches.py)."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo import embed_batches

    _below_answers()
    if event.data.after is not None and event.data.after.exists:  # written, not deleted
        log.info("resumeEmbedding: %s", embed_batches.work(db(), event.params["owner"], get_embedder()))


#: CPU niceness of a process that embeds cards: above every answer's, below the lowest (19) that
#: `scripts/dev`'s gentle backfill takes (admin/backfill.py).
EMBED_NICENESS = 10


@functools.cache
def _below_answers() -> None:
    """Bulk embedding (an import's thousands of cards) yields the CPU to answers and callables where
    they share cores: the emulators run each function in processes of its own on one machine. A
    deployed instance serves one function, so there it changes nothing."""
    from cardchat.embeddings import cpu_priority

    cpu_priority.lower_to(EMBED_NICENESS)


def _card_of(snap: DocumentSnapshot[Any] | None) -> Card | None:
    from cardchat.schema.documents import Card

    data = snap.to_dict() if snap is not None and snap.exists else None  # None: no card (created or deleted)
    return Card.from_dict(data) if data is not None else None


@tasks_fn.on_task_dispatched(
    retry_config=options.RetryConfig(max_attempts=answer_tasks.ATTEMPTS, min_backoff_seconds=10),
    rate_limits=options.RateLimits(max_concurrent_dispatches=answer_tasks.AT_ONCE),
    memory=options.MemoryOption.GB_1,
    cpu=1,  # a concurrency above 1 needs a whole vCPU
    concurrency=answer_tasks.ANSWERS_PER_INSTANCE,
    timeout_sec=GENERATE_TIMEOUT_S,
    secrets=secrets_for("generateAnswer"),
)
def generateAnswer(req: https_fn.CallableRequest[Any]) -> None:
    """Streams the answer a task names: one task per run asked for (repo/answer_tasks.py), none for
    the run's own writes; take_run makes a duplicate delivery harmless (generation/answer_runs.py)."""
    from cardchat.generation import answer_runs

    answer_runs.run_answer(db(), answer_runs.message_of(req.data))


#: generation/sweeper.SWEEP_INTERVAL_S (tests/generation/test_sweeper.py holds them equal).
@scheduler_fn.on_schedule(schedule="every 1 minutes", memory=options.MemoryOption.MB_256, timeout_sec=300)
def sweepAnswers(event: scheduler_fn.ScheduledEvent) -> None:
    """Re-drives or fails the answers whose run died, whether or not anyone watches (generation/sweeper.py)."""
    from cardchat.generation import sweeper

    log.info("sweepAnswers: %s", sweeper.sweep(db()))
