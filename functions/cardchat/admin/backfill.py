"""Embedding every card whose stored vector is missing or stale.

Stale means the card's text hash or the embedding model changed; the
comparison is repo.embeddings.load_embeddings's, so backfill and createChat
agree on what is fresh. Cards skipped over a card quota (embeddings/card_quota.py) are
left to requeue_skipped, which puts them through the quota again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cardchat.schema.documents import Card

if TYPE_CHECKING:
    from cardchat.repo.db import Db

BATCH = 64
#: Gentle mode (`scripts/dev`'s backfill beside a live app): small
#: batches at the lowest CPU priority on one thread, and no batch starts
#: while an answer is being generated (polled every PAUSE_POLL_S), so a
#: chat's first words never wait for the backfill.
GENTLE_BATCH = 8
PAUSE_POLL_S = 0.25


def gentle() -> None:
    """Lowest CPU priority and one inference thread for this process: call
    before the embedder loads."""
    from cardchat.embeddings import cpu_priority

    cpu_priority.lower_to(19)
    os.environ["CARDCHAT_EMBED_THREADS"] = "1"


def backfill(
    db: Db,
    model: str | None = None,
    limit: int | None = None,
    busy: Callable[[], bool] | None = None,
    batch_size: int = BATCH,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[int, int]:
    """Returns (cards embedded now, cards that were already fresh). With
    `busy`, each batch waits until it returns False."""
    from tqdm import tqdm

    from cardchat.embeddings import get_embedder
    from cardchat.embeddings.text import text_hash
    from cardchat.repo import card_writes, embed_quota
    from cardchat.repo.embeddings import embed_and_store, load_embeddings

    embedder = get_embedder(model)
    cards: dict[str, Card] = dict(card_writes.iter_cards(db))
    wanted = {cid: text_hash(c.title, c.body) for cid, c in cards.items()}
    fresh = load_embeddings(db, wanted, embedder.model_id)
    skipped = embed_quota.all_skipped(db)
    todo = sorted(cid for cid in cards if cid not in fresh and cid not in skipped)
    if limit is not None:
        todo = todo[:limit]
    with tqdm(total=len(todo), desc=f"embed ({embedder.model_id})", unit="card") as bar:
        for i in range(0, len(todo), batch_size):
            while busy is not None and busy():
                sleep(PAUSE_POLL_S)
            chunk = todo[i : i + batch_size]
            made = embed_and_store(db, {cid: cards[cid] for cid in chunk}, embedder)
            _index(db, {cid: cards[cid] for cid in chunk}, made, embedder.model_id)
            bar.update(len(chunk))
    _index_owners(db, {c.owner for c in cards.values()}, embedder.model_id)
    return len(todo), len(fresh)


def _index(db: Db, cards: dict[str, Card], vectors: dict[str, Any], model_id: str) -> None:
    """The batch's vectors into their owners' retrieval indexes: one apply_changes per owner."""
    from cardchat.repo.retrieval_index.changes import Change, apply_changes

    by_owner: dict[str, list[Change]] = {}
    for cid, card in cards.items():
        by_owner.setdefault(card.owner, []).append(Change(cid, card, vectors.get(cid)))
    for owner, changes in by_owner.items():
        apply_changes(db, owner, changes, model_id)


def _index_owners(db: Db, owners: set[str], model_id: str) -> None:
    """Owners with no index yet (nothing of theirs needed embedding) get one built, and its public partition."""
    from cardchat.repo.retrieval_index.rebuild import rebuild
    from cardchat.repo.retrieval_index.shards import is_current, read_head

    for owner in sorted(o for o in owners if o):
        for public in (False, True):
            head = read_head(db, owner, public)
            if not is_current(head, model_id):
                rebuild(db, owner, model_id, public=public)


def requeue_skipped(db: Db, owner: str | None = None, model: str | None = None) -> dict[str, str]:
    """Every card skipped over a card quota (of `owner`, or of everyone) back
    into its owner's embedding queue, then each owner's queue drained under the
    quota as it is now: after the limit is raised, they are embedded. Returns
    owner -> what the worker did ("drained n", or "queued": a live worker has them)."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo import embed_batches, embed_queue, embed_quota
    from cardchat.schema.documents import now

    embedder = get_embedder(model)
    done: dict[str, str] = {}
    for who in [owner] if owner else embed_quota.owners_with_skips(db):
        ids = list(embed_quota.skipped_cards(db, who, limit=None))
        for i in range(0, len(ids), 500):
            embed_queue.enqueue_many(db, dict.fromkeys(ids[i : i + 500], who), now())
        done[who] = embed_batches.work(db, who, embedder)
    return done
