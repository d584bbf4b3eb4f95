"""A burst of card writes through the real Functions emulator's embedCard
trigger: every card ends with one fresh vector, an edit and a delete made
during the burst are honoured, and the owner's progress ends at done."""

from __future__ import annotations

import pytest
from test_endpoints import wait_for

from cardchat.embedding_schema import EMBEDDING_PROGRESS, EMBEDDING_QUEUE
from cardchat.embeddings.text import text_hash
from cardchat.schema import CARD_EMBEDDINGS, CARDS, Card

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
        queued = list(app_db.collection(EMBEDDING_QUEUE).limit(1).stream())
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
