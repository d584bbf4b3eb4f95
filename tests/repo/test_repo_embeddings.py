"""card_embeddings and bulk card reads against the real Firestore emulator."""

import numpy as np
import pytest

from cardchat.embeddings import pack, unpack
from cardchat.embeddings.base import normalise
from cardchat.embeddings.text import text_hash
from cardchat.repo import batchget, embed_batches
from cardchat.repo import cards as card_repo
from cardchat.repo import embeddings as repo
from cardchat.repo.cards import load_cards
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card, CardEmbedding
from embedder_support import embedder, fresh_cache

pytestmark = pytest.mark.emulator
__all__ = ["embedder", "fresh_cache"]  # fixtures, used by name


class Reads:
    """Documents asked of Firestore by id since this was made."""

    def __init__(self):
        self._start = batchget.documents_requested()

    @property
    def docs_read(self):
        return batchget.documents_requested() - self._start


def _emb(db, card_id):
    return db.collection(CARD_EMBEDDINGS).document(card_id).get()


def test_a_vector_stored_without_its_owner_gets_it_without_being_recomputed(db, embedder):
    card = Card(title="Owned", body="A card embedded before vectors named their owner.", owner="u7")
    h = text_hash(card.title, card.body)
    legacy = CardEmbedding(model=embedder.model_id, dim=3, vector=pack(np.ones(3)), text_hash=h).to_dict()
    del legacy["owner"]
    db.collection(CARD_EMBEDDINGS).document("legacy").set(legacy)
    # A write that leaves the embedded text as it was (tags, say) only adds the owner.
    assert embed_batches.on_card_written(db, "legacy", card, card, embedder) == "unchanged"
    data = _emb(db, "legacy").to_dict()
    assert data["owner"] == "u7" and data["dim"] == 3  # the vector itself untouched

    repo.embed_and_store(db, {"bulk": card}, embedder)
    assert _emb(db, "bulk").to_dict()["owner"] == "u7"


def test_a_vector_of_another_model_is_replaced(db, embedder):
    card = Card(title="T", body="B", owner="u1")
    h = text_hash(card.title, card.body)
    foreign = CardEmbedding(model="text-embedding-3-small", dim=3, vector=pack(np.ones(3)), text_hash=h)
    db.collection(CARD_EMBEDDINGS).document("c1").set(foreign.to_dict())
    db.collection(CARDS).document("c1").set(card.to_dict())
    assert embed_batches.on_card_written(db, "c1", card, card, embedder) == "drained 1"
    assert _emb(db, "c1").to_dict()["model"] == embedder.model_id


def _store_random(db, ids, model="m1", dim=8, seed=0):
    rng = np.random.default_rng(seed)
    vectors = normalise(rng.normal(size=(len(ids), dim)))
    batch = db.batch()
    for i, (card_id, vec) in enumerate(zip(ids, vectors)):
        doc = CardEmbedding(model=model, dim=dim, vector=pack(vec), text_hash=f"h-{card_id}")
        batch.set(db.collection(CARD_EMBEDDINGS).document(card_id), doc.to_dict())
        if i % 400 == 399:
            batch.commit()
            batch = db.batch()
    batch.commit()
    return dict(zip(ids, vectors))


def test_load_returns_only_fresh_vectors_of_the_model(db):
    stored = _store_random(db, ["a", "b", "c"])
    _store_random(db, ["d"], model="m2")
    wanted = {"a": "h-a", "b": "h-b-edited", "c": "h-c", "d": "h-d", "zz": "h-zz"}
    got = repo.load_embeddings(db, wanted, "m1")
    assert list(got) == ["a", "c"]  # b is stale, d is another model's, zz has none
    assert np.array_equal(got["a"], stored["a"]) and got["a"].dtype == np.float32


def test_warm_load_is_served_from_the_cache(db):
    ids = [f"card-{i:04d}" for i in range(700)]
    stored = _store_random(db, ids)
    counting = Reads()
    wanted = {i: f"h-{i}" for i in ids}

    cold = repo.load_embeddings(db, wanted, "m1")
    assert len(cold) == 700 and counting.docs_read == 700
    assert all(np.array_equal(cold[i], stored[i]) for i in ids)
    assert repo.cache_stats()["reads"] == 700

    warm = repo.load_embeddings(db, wanted, "m1")
    assert counting.docs_read == 700  # no reads at all
    assert all(warm[i] is cold[i] for i in ids)
    stats = repo.cache_stats()
    assert stats["hits"] == 700 and stats["reads"] == 700

    # An edited card misses the cache (new hash) and is read, found stale, and left out.
    wanted["card-0001"] = "h-new"
    partial = repo.load_embeddings(db, wanted, "m1")
    assert counting.docs_read == 701 and "card-0001" not in partial and len(partial) == 699


def test_embed_and_store_writes_every_card_and_fills_the_cache(db, embedder):
    cards = {
        f"c{i}": Card(title=f"Note {i}", body=f"Topic {i % 7}: details about subject {i}.", owner="u1")
        for i in range(30)
    }
    cards["dup"] = Card(title="Note 3", body=cards["c3"].body, owner="u2")  # same text as c3
    vectors = repo.embed_and_store(db, cards, embedder)
    assert set(vectors) == set(cards)
    assert np.array_equal(vectors["dup"], vectors["c3"])

    docs = {s.id: s.to_dict() for s in db.collection(CARD_EMBEDDINGS).stream()}
    assert set(docs) == set(cards)
    for card_id, card in cards.items():
        assert docs[card_id]["text_hash"] == text_hash(card.title, card.body)
        assert np.array_equal(unpack(docs[card_id]["vector"], 384), vectors[card_id])

    wanted = {i: text_hash(c.title, c.body) for i, c in cards.items()}
    counting = Reads()
    assert set(repo.load_embeddings(db, wanted, embedder.model_id)) == set(cards)
    assert counting.docs_read == 0  # just written: served from the cache
    repo.clear_cache()
    reloaded = repo.load_embeddings(db, wanted, embedder.model_id)
    assert counting.docs_read == len(cards)
    assert all(np.array_equal(reloaded[i], vectors[i]) for i in cards)

    # A trigger delivered again finds its vector current: no model call.
    calls = embedder.calls
    assert embed_batches.on_card_written(db, "c5", None, cards["c5"], embedder) == "unchanged"
    assert embedder.calls == calls


def test_load_cards_in_chunks_dropping_missing_ids(db, monkeypatch):
    monkeypatch.setattr(card_repo, "BATCH", 300)  # three streams
    batch = db.batch()
    for i in range(650):
        batch.set(db.collection(CARDS).document(f"k{i}"), Card(title=f"T{i}", body=f"B{i}", owner="u").to_dict())
        if i % 400 == 399:
            batch.commit()
            batch = db.batch()
    batch.commit()
    ids = [f"k{i}" for i in range(649, -1, -1)] + ["missing-1", "k3", "missing-2"]
    counting = Reads()
    cards = load_cards(db, ids)
    assert list(cards) == [f"k{i}" for i in range(649, -1, -1)]
    assert cards["k7"].title == "T7" and cards["k7"].body == "B7" and cards["k7"].owner == "u"
    assert counting.docs_read == 652  # duplicates asked once
    assert load_cards(db, []) == {}
