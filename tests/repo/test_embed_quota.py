"""The card quotas on the Firestore emulator: over a user's card limit or
their minute's writes, a card is kept but not embedded, its owner can read
why, and raising the limit embeds it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cardchat.admin.backfill import backfill, requeue_skipped
from cardchat.embeddings.card_quota import CARD_LIMIT, EMBEDDING_SKIPS, WRITE_RATE, skip_id
from cardchat.repo import embed_batches as eb
from cardchat.repo import embed_queue
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card
from embedder_support import embedder, fresh_cache

pytestmark = pytest.mark.emulator
__all__ = ["embedder", "fresh_cache"]  # fixtures, used by name
OWNER = "u1"
#: The worker's clock, a day after the cards are written: its sweep of recently written cards finds none, so
#: what it requeues it requeues for room; five seconds into a minute, so +30 s is the same minute.
T0 = (datetime.now(UTC) + timedelta(days=1)).replace(second=5, microsecond=0)


def limits(monkeypatch, cards: int = 1_000, per_minute: int = 1_000) -> None:
    monkeypatch.setenv("CARDCHAT_MAX_CARDS_PER_USER", str(cards))
    monkeypatch.setenv("CARDCHAT_CARD_WRITES_PER_MINUTE", str(per_minute))


def write(db, n: int, owner: str = OWNER, start: int = 0) -> dict[str, Card]:
    cards = {
        f"{owner}-c{i}": Card(title=f"Note {i}", body=f"Details about subject {i}, part {i * 7}.", owner=owner)
        for i in range(start, start + n)
    }
    batch = db.batch()
    for card_id, card in cards.items():
        batch.set(db.collection(CARDS).document(card_id), card.to_dict())
    batch.commit()
    embed_queue.enqueue_many(db, dict.fromkeys(cards, owner), T0)
    return cards


def embedded(db, owner: str = OWNER) -> set[str]:
    return {s.id for s in db.collection(CARD_EMBEDDINGS).stream() if s.get("owner") == owner}


def skips(db) -> dict[str, dict]:
    """Card id -> its skip record, checking each record's id is in its owner's namespace."""
    found = {s.get("card"): s.to_dict() for s in db.collection(EMBEDDING_SKIPS).stream()}
    assert {s.id for s in db.collection(EMBEDDING_SKIPS).stream()} == {skip_id(r["owner"], c) for c, r in found.items()}
    return found


def test_cards_over_the_limit_are_kept_unembedded_with_the_reason_and_raising_it_embeds_them(db, embedder, monkeypatch):
    limits(monkeypatch, cards=3)
    cards = write(db, 5)
    assert eb.drain(db, OWNER, embedder, "w1", clock=lambda: T0) == 3
    assert len(embedded(db)) == 3 and len(list(db.collection(CARDS).stream())) == 5  # nothing lost
    over = skips(db)
    assert set(over) == set(cards) - embedded(db)
    assert all(s["owner"] == OWNER and s["reason"] == CARD_LIMIT for s in over.values())

    # an embedded card keeps its place: its edit is embedded at the limit
    held = sorted(embedded(db))[0]
    db.collection(CARDS).document(held).update({"body": "An edited text, embedded again."})
    embed_queue.enqueue_many(db, {held: OWNER}, T0)
    assert eb.drain(db, OWNER, embedder, "w2", clock=lambda: T0) == 1
    assert len(embedded(db)) == 3 and set(skips(db)) == set(over)

    # an operator's backfill leaves them to the quota too
    assert backfill(db, "minilm")[0] == 0 and len(embedded(db)) == 3

    limits(monkeypatch, cards=10)
    assert requeue_skipped(db, OWNER, "minilm") == {OWNER: "drained 2"}
    assert embedded(db) == set(cards) and skips(db) == {}


def test_a_worker_with_room_takes_skipped_cards_back(db, embedder, monkeypatch):
    limits(monkeypatch, cards=3)
    cards = write(db, 5)
    eb.drain(db, OWNER, embedder, "w1", clock=lambda: T0)
    gone = sorted(embedded(db))[0]
    waiting = set(skips(db))
    db.collection(CARDS).document(gone).delete()
    assert eb.on_card_written(db, gone, cards[gone], None, embedder, clock=lambda: T0) == "drained 1"
    assert len(embedded(db)) == 3 and len(skips(db)) == 1 and set(skips(db)) < waiting


def test_writes_over_the_minute_wait_for_a_later_one(db, embedder, monkeypatch):
    limits(monkeypatch, per_minute=2)
    write(db, 3)
    write(db, 2, owner="u2")  # another owner's minute is theirs
    assert eb.drain(db, OWNER, embedder, "w1", clock=lambda: T0) == 2
    assert eb.drain(db, "u2", embedder, "w2", clock=lambda: T0) == 2
    (late,) = skips(db).values()
    assert late["reason"] == WRITE_RATE and late["owner"] == OWNER
    write(db, 1, start=3)  # the same minute: still full
    assert eb.drain(db, OWNER, embedder, "w1", clock=lambda: T0 + timedelta(seconds=30)) == 0
    assert len(skips(db)) == 2 and len(embedded(db)) == 2
    # the next minute's worker takes them back
    assert eb.work(db, OWNER, embedder, clock=lambda: T0 + timedelta(seconds=60)) == "drained 2"
    assert len(embedded(db)) == 4 and skips(db) == {}
