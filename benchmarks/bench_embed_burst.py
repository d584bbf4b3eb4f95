"""A burst of card writes embedded by the embedCard trigger.

Runs under `scripts/bench embed_burst`, which starts the Firestore and
Functions emulators twice: once unbatched (CARDCHAT_EMBED_BATCH=1, one card
per model call: the per-card cost of the trigger path before batching), once
as deployed (batches of 64). Each run warms the trigger with one card, then
writes N cards of a fresh owner in one commit and waits until every one has
a vector: cards/s from the commit to the last vector.
`embedded` is the owner's progress count: N means no card was embedded twice.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from google.cloud.firestore import FieldFilter

from benchmarks.common import sized
from cardchat.repo.embed_queue import read_progress
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card
from cardchat.schema.embedding_queue import EmbeddingProgress

#: How long a run may take before it is reported as stuck.
PATIENCE_S = 900.0


def _cards(owner: str, n: int) -> dict[str, Card]:
    return {
        f"{owner}-{i:05d}": Card(
            title=f"Note {i} on topic {i % 37}",
            body=f"Subject {i % 11}: what was learnt about item {i}, with the details of part {i * 7 % 101}. " * 3,
            owner=owner,
        )
        for i in range(n)
    }


def _write(db: Any, cards: dict[str, Card]) -> None:
    items = list(cards.items())
    for start in range(0, len(items), 500):
        batch = db.batch()
        for card_id, card in items[start : start + 500]:
            batch.set(db.collection(CARDS).document(card_id), card.to_dict())
        batch.commit()


def _embedded(db: Any, owner: str) -> int:
    counting: Any = db.collection(CARD_EMBEDDINGS).where(filter=FieldFilter("owner", "==", owner)).count(alias="n")
    return int(counting.get()[0][0].value)


def _burst(db: Any, n: int) -> tuple[float, int]:
    """Seconds from the commit of n cards to their last vector; the progress's `embedded`."""
    owner = f"bench-{uuid.uuid4().hex[:8]}"
    _write(db, _cards(owner, n))
    start = time.perf_counter()
    while _embedded(db, owner) < n:
        if time.perf_counter() - start > PATIENCE_S:
            raise RuntimeError(f"only {_embedded(db, owner)} of {n} cards embedded after {PATIENCE_S:.0f} s")
        time.sleep(0.2)
    took = time.perf_counter() - start
    while _progress(db, owner).pending and time.perf_counter() - start < PATIENCE_S:
        time.sleep(0.2)  # the last batch's count lands after its vectors
    return took, _progress(db, owner).embedded


def _progress(db: Any, owner: str) -> EmbeddingProgress:
    return read_progress(db, owner) or EmbeddingProgress(embedded=-1)


def run(db: Any) -> list[str]:
    batch = os.environ.get("CARDCHAT_EMBED_BATCH", "64")
    n = int(os.environ.get("CARDCHAT_BENCH_BURST", sized("500", "3")))
    warm, _ = _burst(db, 1)  # the first trigger loads the model
    took, embedded = _burst(db, n)
    return [
        f"warm-up: 1 card in {warm:.1f} s (cold trigger, model load)",
        f"batch {batch}: {n} cards in {took:.1f} s = {n / took:.1f} cards/s (embedded {embedded}: none twice if {n})",
    ]


if __name__ == "__main__":
    from benchmarks.common import run_against_emulator

    run_against_emulator(run)
