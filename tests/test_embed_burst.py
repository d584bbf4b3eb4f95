"""A burst of card writes through the real Functions emulator's embedCard
trigger: every card ends with one fresh vector, an edit and a delete made
during the burst are honoured, and the owner's progress ends at done; a
worker's handover starts a fresh worker (resumeEmbedding)."""

from __future__ import annotations

import pytest
from google.cloud.firestore import FieldFilter
from test_endpoints import wait_for

from benchmarks.common import triggers_paused
from cardchat.embeddings.text import text_hash
from cardchat.repo import embed_queue
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card, now
from cardchat.schema.embedding_queue import EMBEDDING_HANDOVERS, EMBEDDING_PROGRESS, EMBEDDING_QUEUE, Handover

pytestmark = pytest.mark.functions
OWNER = "burst-owner"
N = 100


def test_a_burst_of_card_writes_is_embedded_once_each(app_db):
    cards = {
        f"burst-{i:03d}": Card(f"Note {i}", f"Subject {i % 11}: the details of item {i}.", OWNER) for i in range(N)
    }
    batch = app_db.batch()
    for card_id, card in cards.items():
        batch.set(app_db.collection(CARDS).document(card_id), card.to_dict())
    batch.commit()
    # During the burst: one card edited, one deleted.
    cards["burst-050"] = Card("Note 50, edited", "Rewritten during the burst.", OWNER)
    app_db.collection(CARDS).document("burst-050").set(cards["burst-050"].to_dict())
    app_db.collection(CARDS).document("burst-099").delete()
    del cards["burst-099"]

    progress = app_db.collection(EMBEDDING_PROGRESS).document(OWNER)

    def done():
        data = progress.get().to_dict() or {}
        # this owner's queue only: another test's owner may still have cards queued (a worker that
        # ended on a store error leaves them to that owner's next write)
        mine = app_db.collection(EMBEDDING_QUEUE).where(filter=FieldFilter("owner", "==", OWNER))
        queued = list(mine.limit(1).stream())
        return data.get("pending") == 0 and not queued and data

    final = wait_for(lambda: (d := done()) and _all_fresh(app_db, cards) and d, timeout=240, what="every card embedded")
    assert not app_db.collection(CARD_EMBEDDINGS).document("burst-099").get().exists
    # One vector per card written, the edited one perhaps twice (if its first text was embedded before the edit);
    # burst-099 perhaps once (if embedded before its delete): never a card embedded twice for the same text.
    assert N - 1 <= final["embedded"] <= N + 1


def _all_fresh(db, cards: dict[str, Card]) -> bool:
    refs = [db.collection(CARD_EMBEDDINGS).document(card_id) for card_id in cards]
    stored = {snap.id: snap.to_dict() for snap in db.get_all(refs, field_paths=["text_hash"]) if snap.exists}
    return all(stored.get(cid, {}).get("text_hash") == text_hash(c.title, c.body) for cid, c in cards.items())


def test_a_handover_starts_a_fresh_worker_that_finishes_the_queue(app_db):
    """What a worker out of time leaves (queued cards, no notice) and then writes (a handover):
    resumeEmbedding embeds the rest, with no card written after."""
    owner = "handover-owner"
    cards = {
        f"hand-{i}": Card(f"Left {i}", f"Queued when the worker's time ran out, part {i}.", owner) for i in range(5)
    }
    with triggers_paused():
        batch = app_db.batch()
        for card_id, card in cards.items():
            batch.set(app_db.collection(CARDS).document(card_id), card.to_dict())
        batch.commit()
        embed_queue.enqueue_many(app_db, dict.fromkeys(cards, owner), now())
    assert not _all_fresh(app_db, cards)
    app_db.collection(EMBEDDING_HANDOVERS).document(owner).set(Handover(worker="out-of-time").to_dict())
    wait_for(
        lambda: _all_fresh(app_db, cards) and not embed_queue.pending_count(app_db, owner),
        timeout=180,
        what="the rest embedded",
    )
