"""Shapes of the batched embedding pipeline: the queue of
cards waiting for a vector, the per-owner worker notice, and the owner's
progress. One definition each, like schema/documents.py; apart so neither outgrows a reader.

How they are used: repo/embed_queue.py (the documents), repo/embed_batches.py
(the worker)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cardchat.schema.documents import COLLECTIONS, _dict, now

#: Server-only: embedding_queue/{card_id}, a card whose vector must be made
#: (or removed). Rules deny every client: which cards wait says nothing the
#: owner needs that `embedding_progress` does not.
EMBEDDING_QUEUE = COLLECTIONS["embedding_queue"]
#: Server-only: embedding_workers/{uid}, "a worker is draining this owner's queue until `alive_until`".
EMBEDDING_WORKERS = COLLECTIONS["embedding_workers"]
#: embedding_progress/{uid}: the owner's own counts (EmbeddingProgress). Owner-readable, server-written.
EMBEDDING_PROGRESS = COLLECTIONS["embedding_progress"]
#: Server-only: embedding_handovers/{uid}, "a worker stopped at its time budget with cards still
#: queued": writing it starts resumeEmbedding (endpoints/triggers.py), a fresh worker for the rest (Handover).
EMBEDDING_HANDOVERS = COLLECTIONS["embedding_handovers"]
#: embedCard's time limit (endpoints/triggers.py): a worker stops taking inside it (embed_batches.DRAIN_BUDGET_S).
EMBED_TIMEOUT_S = 540


@dataclass
class QueuedCard:
    """embedding_queue/{card_id}. `version` is new at every write of the
    card a trigger sees: a worker removes the entry only if its version is the
    one it took, so a card written during a batch stays queued and is
    embedded again. `lease_until` / `worker`: a take; an expired lease is
    takeable again (its worker crashed)."""

    owner: str
    version: str
    enqueued: datetime = field(default_factory=now)
    lease_until: datetime | None = None
    worker: str = ""

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class WorkerNotice:
    """embedding_workers/{uid}: a trigger that finds a live notice leaves its
    card to that worker, which takes batches until the queue is empty."""

    worker: str
    alive_until: datetime

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class EmbeddingProgress:
    """embedding_progress/{uid}: `pending` cards of the owner wait for their
    vector (0: every card written so far is embedded); `embedded` counts the
    vectors made for the owner's cards, ever (a card edited three times
    counts three). The SPA shows "embedded N − pending / N" beside the
    owner's card count."""

    pending: int = 0
    embedded: int = 0
    updated: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class EmbeddingSkip:
    """embedding_skips/{uid}:{card_id} (embeddings/card_quota.skip_id): why a card of the owner's was not
    embedded, one of common/collections.json `embedding_skip.reasons`. Owner-readable, server-written."""

    owner: str
    card: str
    reason: str
    at: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class Handover:
    """embedding_handovers/{uid}: the worker `worker` ran out of its time
    budget at `at` with the owner's queue not empty; each write (a new `at`)
    starts one resumeEmbedding, which becomes the owner's worker unless a live
    one is there. Nothing else would: a queue waits for the owner's next card write."""

    worker: str
    at: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)
