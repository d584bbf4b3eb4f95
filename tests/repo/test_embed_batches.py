"""Batched embedding (repo/embed_batches.py) against the real Firestore
emulator and the real MiniLM model: what embedCard does with card writes,
delivered one by one, in bursts, concurrently and twice. Model calls are
counted by the embedder itself (calls: model runs, texts: texts embedded)."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import numpy as np
import pytest

from cardchat.embeddings import unpack
from cardchat.embeddings.base import EmbeddingError
from cardchat.embeddings.text import text_hash
from cardchat.repo import embed_batches as eb
from cardchat.repo import embed_queue
from cardchat.repo.embeddings import embed_and_store
from cardchat.repo.retrieval_index import reader
from cardchat.repo.retrieval_index.shards import IndexConflict
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card, now
from cardchat.schema.embedding_queue import EMBEDDING_HANDOVERS, EMBEDDING_QUEUE, EMBEDDING_WORKERS
from embedder_support import embedder, fresh_cache

pytestmark = pytest.mark.emulator
__all__ = ["embedder", "fresh_cache"]  # fixtures, used by name
OWNER = "u1"


class Counted:
    """What the embedder did since this was made."""

    def __init__(self, embedder):
        self.embedder, self.calls0, self.texts0 = embedder, embedder.calls, embedder.texts

    @property
    def calls(self):
        return self.embedder.calls - self.calls0

    @property
    def texts(self):
        return self.embedder.texts - self.texts0


def _card(i: int, owner: str = OWNER) -> Card:
    return Card(title=f"Note {i}", body=f"Topic {i % 9}: details about subject {i}, part {i * 7}.", owner=owner)


def _write(db, cards: dict[str, Card]) -> None:
    batch = db.batch()
    for card_id, card in cards.items():
        batch.set(db.collection(CARDS).document(card_id), card.to_dict())
    batch.commit()


def _emb(db, card_id):
    snap = db.collection(CARD_EMBEDDINGS).document(card_id).get()
    return snap.to_dict() if snap.exists else None


def _assert_all_fresh(db, cards: dict[str, Card], embedder) -> None:
    for card_id, card in cards.items():
        data = _emb(db, card_id)
        assert data is not None, card_id
        assert data["text_hash"] == text_hash(card.title, card.body) and data["model"] == embedder.model_id, card_id
    assert list(db.collection(EMBEDDING_QUEUE).stream()) == []
    assert not db.collection(EMBEDDING_WORKERS).document(OWNER).get().exists


def test_single_card_lifecycle(db, embedder):
    card = Card(title="Cache design", body="We keep Firestore reads in an LRU cache.", owner=OWNER)
    _write(db, {"c1": card})
    counted = Counted(embedder)
    assert eb.on_card_written(db, "c1", None, card, embedder) == "drained 1"
    first = _emb(db, "c1")
    assert first["dim"] == 384 and first["owner"] == OWNER and first["text_hash"] == text_hash(card.title, card.body)
    vec = unpack(first["vector"], 384)
    assert np.allclose(vec, embedder.embed(["Cache design\nWe keep Firestore reads in an LRU cache."])[0], atol=1e-5)
    assert counted.texts == 2  # the card, and the comparison above

    # Tags and `updated` only: no model call, no vector written; the index learns the tags at once.
    edited = Card(**{**card.__dict__, "tags": ["infra"], "updated": card.updated + timedelta(hours=1)})
    snap = db.collection(CARD_EMBEDDINGS).document("c1").get()
    assert eb.on_card_written(db, "c1", card, edited, embedder) == "reindexed"
    assert db.collection(CARD_EMBEDDINGS).document("c1").get().update_time == snap.update_time
    assert counted.texts == 2
    assert reader.all_entries(db, OWNER)["c1"].tags == ("infra",)
    assert eb.on_card_written(db, "c1", edited, edited, embedder) == "unchanged"  # `updated` alone: nothing

    retitled = Card(**{**edited.__dict__, "title": "Cache design v2"})
    _write(db, {"c1": retitled})
    assert eb.on_card_written(db, "c1", edited, retitled, embedder) == "drained 1"
    second = _emb(db, "c1")
    assert second["text_hash"] == text_hash("Cache design v2", card.body) and second["vector"] != first["vector"]

    db.collection(CARDS).document("c1").delete()
    assert eb.on_card_written(db, "c1", retitled, None, embedder) == "drained 0"
    assert _emb(db, "c1") is None
    # The editor's undo writes it back as it was: its vector is stored again.
    _write(db, {"c1": retitled})
    assert eb.on_card_written(db, "c1", None, retitled, embedder) == "drained 1"
    assert np.allclose(unpack(_emb(db, "c1")["vector"], 384), unpack(second["vector"], 384), atol=1e-5)
    db.collection(CARDS).document("c1").delete()
    assert eb.on_card_written(db, "c1", retitled, None, embedder) == "drained 0"
    progress = embed_queue.read_progress(db, OWNER)
    assert progress is not None and progress.pending == 0 and progress.embedded == 3
    assert counted.texts == 4


def test_a_burst_waiting_on_a_worker_is_embedded_in_full_batches(db, embedder):
    cards = {f"b{i:03d}": _card(i) for i in range(100)}
    _write(db, cards)
    counted = Counted(embedder)
    # Another worker holds the owner's notice: every trigger only queues its card.
    assert eb.take_notice(db, OWNER, "elsewhere", now())
    assert {eb.on_card_written(db, cid, None, c, embedder) for cid, c in cards.items()} == {"queued"}
    assert counted.calls == 0 and embed_queue.pending_count(db, OWNER) == 100

    assert eb.drain(db, OWNER, embedder, "elsewhere") == 100
    # 64 + 36 cards: two model calls of 32 and 32, two of 32 and 4; no card twice.
    assert counted.texts == 100 and counted.calls == 2 * math.ceil(64 / 32)
    _assert_all_fresh(db, cards, embedder)
    progress = embed_queue.read_progress(db, OWNER)
    assert progress.pending == 0 and progress.embedded == 100


def test_concurrent_and_repeated_deliveries_embed_each_card_once(db, embedder):
    cards = {f"r{i:03d}": _card(i) for i in range(100)}
    _write(db, cards)
    counted = Counted(embedder)
    # Every event delivered twice (at least once is all Cloud Functions promise), 8 at a time.
    events = [cid for cid in cards for _ in range(2)]
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda cid: eb.on_card_written(db, cid, None, cards[cid], embedder), events))
    drained = [int(o.split()[1]) for o in outcomes if o.startswith("drained")]
    assert sum(drained) == 100 == counted.texts
    _assert_all_fresh(db, cards, embedder)
    assert embed_queue.read_progress(db, OWNER).embedded == 100


class WritesDuringEmbed:
    """The real embedder; while it embeds its first batch, `during` runs: a
    user's write and its trigger landing mid-batch."""

    def __init__(self, inner, during):
        self.inner, self.during = inner, during
        self.model_id, self.dim = inner.model_id, inner.dim

    def embed(self, texts):
        if self.during is not None:
            during, self.during = self.during, None
            during()
        return self.inner.embed(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


def test_a_card_written_or_deleted_during_its_batch_is_done_again(db, embedder):
    cards = {f"m{i}": _card(i) for i in range(10)}
    _write(db, cards)
    assert eb.take_notice(db, OWNER, "w", now())
    for cid, c in cards.items():
        assert eb.on_card_written(db, cid, None, c, embedder) == "queued"
    edited = Card(**{**cards["m3"].__dict__, "body": "Rewritten while its old text was being embedded."})

    def user_writes():
        _write(db, {"m3": edited})
        assert eb.on_card_written(db, "m3", cards["m3"], edited, embedder) == "queued"
        db.collection(CARDS).document("m5").delete()
        assert eb.on_card_written(db, "m5", cards["m5"], None, embedder) == "queued"

    counted = Counted(embedder)
    eb.drain(db, OWNER, WritesDuringEmbed(embedder, user_writes), "w")
    assert _emb(db, "m3")["text_hash"] == text_hash(edited.title, edited.body)
    assert _emb(db, "m5") is None  # the batch stored it after the delete; the next batch removed it
    assert counted.texts == 11  # m3 twice: its old text, then its new one
    del cards["m5"]
    cards["m3"] = edited
    _assert_all_fresh(db, cards, embedder)


def test_a_crashed_workers_cards_are_taken_over_once_its_leases_run_out(db, embedder):
    t0 = now()
    cards = {f"x{i}": _card(i) for i in range(5)}
    _write(db, cards)
    assert eb.take_notice(db, OWNER, "dead", t0)
    for cid in ["x0", "x1", "x2"]:
        assert eb.on_card_written(db, cid, None, cards[cid], embedder, clock=lambda: t0) == "queued"
    assert len(embed_queue.take(db, OWNER, "dead", t0, eb.LEASE, 64)) == 3  # ... and then it crashed
    later = t0 + timedelta(seconds=30)
    assert eb.on_card_written(db, "x3", None, cards["x3"], embedder, clock=lambda: later) == "queued"
    # The notice has run out, but not the leases: the new worker embeds only the untaken card.
    after_notice = t0 + eb.NOTICE + timedelta(seconds=1)
    assert eb.on_card_written(db, "x4", None, cards["x4"], embedder, clock=lambda: after_notice) == "drained 2"
    assert embed_queue.pending_count(db, OWNER) == 3
    after_lease = t0 + eb.LEASE + timedelta(seconds=1)
    assert eb.on_card_written(db, "x0", None, cards["x0"], embedder, clock=lambda: after_lease) == "drained 3"
    _assert_all_fresh(db, cards, embedder)


def test_a_worker_finds_a_bursts_cards_before_their_triggers_come(db, embedder):
    cards = {f"s{i:03d}": _card(i) for i in range(100)}
    _write(db, cards)
    counted = Counted(embedder)
    # Events lag behind the writes (the emulator delivers them one at a time): the first one's worker does them all.
    assert eb.on_card_written(db, "s000", None, cards["s000"], embedder) == "drained 100"
    # Its own card (one call), then the swept 64 + 35 (two calls each).
    assert counted.texts == 100 and counted.calls == 5
    _assert_all_fresh(db, cards, embedder)
    assert {eb.on_card_written(db, cid, None, c, embedder) for cid, c in cards.items()} == {"unchanged"}
    assert counted.texts == 100


def test_a_worker_out_of_time_hands_the_rest_over_to_a_fresh_worker(db, embedder):
    cards = {f"h{i:02d}": _card(i) for i in range(70)}
    _write(db, cards)
    assert eb.take_notice(db, OWNER, "elsewhere", now())
    assert {eb.on_card_written(db, cid, None, c, embedder) for cid, c in cards.items()} == {"queued"}
    embed_queue.retire(db, OWNER)
    # A budget of 0 s (embedCard's is 420 s): the worker stops after its first batch of 64.
    assert eb.work(db, OWNER, embedder, budget_s=0) == "drained 64"
    assert embed_queue.pending_count(db, OWNER) == 6
    assert not db.collection(EMBEDDING_WORKERS).document(OWNER).get().exists
    handover = db.collection(EMBEDDING_HANDOVERS).document(OWNER).get()
    assert handover.exists  # its write starts resumeEmbedding (endpoints/triggers.py), which does what follows
    assert eb.work(db, OWNER, embedder) == "drained 6"
    _assert_all_fresh(db, cards, embedder)


def test_a_worker_out_of_time_with_nothing_left_only_retires(db, embedder):
    cards = {f"e{i}": _card(i) for i in range(3)}
    _write(db, cards)
    embed_queue.enqueue_many(db, dict.fromkeys(cards, OWNER), now())
    assert eb.work(db, OWNER, embedder, budget_s=0) == "drained 3"
    assert not db.collection(EMBEDDING_HANDOVERS).document(OWNER).get().exists
    assert not db.collection(EMBEDDING_WORKERS).document(OWNER).get().exists


class FailingOnce:
    """The real embedder behind an embedding service that fails its first call (EmbeddingError, as a
    remote embedder's outage reads)."""

    def __init__(self, embedder):
        self.inner, self.model_id, self.dim, self.failed = embedder, embedder.model_id, embedder.dim, False

    def embed(self, texts):
        if not self.failed:
            self.failed = True
            raise EmbeddingError("the embedding service is unavailable")
        return self.inner.embed(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


def test_a_failed_batch_is_tried_again_by_its_worker(db, embedder, monkeypatch):
    """After the last card's trigger no later one would start a worker: a worker that gave up on a
    failed batch would leave the rest queued."""
    monkeypatch.setattr(eb, "BATCH_PAUSE_S", 0.01)
    cards = {f"f{i:02d}": _card(i) for i in range(5)}
    _write(db, cards)
    assert eb.take_notice(db, OWNER, "elsewhere", now())
    assert {eb.on_card_written(db, cid, None, c, embedder) for cid, c in cards.items()} == {"queued"}
    embed_queue.retire(db, OWNER)
    flaky = FailingOnce(embedder)
    assert eb.work(db, OWNER, flaky) == "drained 5"
    assert flaky.failed
    _assert_all_fresh(db, cards, embedder)


def _index_the_first(db, embedder, cards: dict[str, Card]) -> None:
    """The owner's index exists (its first batch builds it), so later batches change it in place."""
    first = next(iter(cards))
    _write(db, {first: cards[first]})
    assert eb.on_card_written(db, first, None, cards[first], embedder) == "drained 1"


def test_a_batch_whose_index_write_failed_indexes_and_counts_the_vectors_its_first_try_stored(
    db, embedder, monkeypatch
):
    """The first try stores the vectors, then the index refuses it (another writer got there first
    each time): the second try embeds nothing again, yet the index gets those vectors and the
    owner's progress counts them."""
    monkeypatch.setattr(eb, "BATCH_PAUSE_S", 0.01)
    cards = {f"i{i}": _card(i) for i in range(6)}
    _index_the_first(db, embedder, cards)
    later = {cid: c for cid, c in cards.items() if cid != "i0"}
    _write(db, later)
    embed_queue.enqueue_many(db, dict.fromkeys(later, OWNER), now())
    real, refused = eb.apply_changes, []

    def refused_once(*args, **kwargs):
        if not refused:
            refused.append(True)
            raise IndexConflict("retrieval index: 8 writers in a row got there first")
        return real(*args, **kwargs)

    monkeypatch.setattr(eb, "apply_changes", refused_once)
    counted = Counted(embedder)
    assert eb.work(db, OWNER, embedder) == "drained 5"
    assert refused and counted.texts == 5
    entries = reader.all_entries(db, OWNER)
    for cid in later:
        stored = unpack(_emb(db, cid)["vector"], 384)
        assert entries[cid].vector is not None, cid
        kept = entries[cid].vector.astype(np.float32)
        assert float(np.dot(kept, stored) / np.linalg.norm(kept) / np.linalg.norm(stored)) > 0.99, cid
    assert embed_queue.read_progress(db, OWNER).embedded == 1 + 5


def test_cards_whose_worker_died_after_storing_their_vectors_are_indexed_with_them(db, embedder):
    """A worker stored the vectors and died before the index took them; its cards stay queued, and
    the next worker indexes the vectors that are stored instead of entries without one."""
    cards = {f"d{i}": _card(i) for i in range(4)}
    _index_the_first(db, embedder, cards)
    later = {cid: c for cid, c in cards.items() if cid != "d0"}
    _write(db, later)
    embed_and_store(db, later, embedder)  # ... and then it died
    embed_queue.enqueue_many(db, dict.fromkeys(later, OWNER), now())
    counted = Counted(embedder)
    assert eb.work(db, OWNER, embedder) == "drained 0"
    assert counted.texts == 0
    entries = reader.all_entries(db, OWNER)
    assert all(entries[cid].vector is not None for cid in later)


class Watching:
    """The real embedder; at each model call, what the owner's progress says is pending."""

    def __init__(self, db, embedder):
        self.db, self.inner, self.model_id, self.dim, self.pending = db, embedder, embedder.model_id, embedder.dim, []

    def embed(self, texts):
        self.pending.append(embed_queue.read_progress(self.db, OWNER).pending)
        return self.inner.embed(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


def test_the_progress_counts_swept_cards_as_pending_until_their_batch_is_counted(db, embedder):
    """A reader that sees nothing pending must see every vector made so far counted: the sweep's
    cards are pending while their batch runs, not after the previous batch said 0."""
    cards = {f"p{i:02d}": _card(i) for i in range(40)}
    _write(db, cards)
    watching = Watching(db, embedder)
    assert eb.on_card_written(db, "p00", None, cards["p00"], watching) == "drained 40"
    # The worker's own card, then the 39 swept (one batch, one or more model calls).
    assert watching.pending[0] == 1 and watching.pending[1:] and set(watching.pending[1:]) == {39}
    progress = embed_queue.read_progress(db, OWNER)
    assert progress.pending == 0 and progress.embedded == 40
