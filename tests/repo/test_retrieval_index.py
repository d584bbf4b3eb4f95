"""The retrieval index in Firestore: apply_changes keeps it, and its public
partition, equal to a rebuild (property test), concurrent writers lose nothing, readers never see a
half-written version, and a warm read is the head alone."""

from __future__ import annotations

import threading
import uuid

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardchat.embeddings import pack
from cardchat.embeddings.text import text_hash
from cardchat.repo.retrieval_index import reader, shards
from cardchat.repo.retrieval_index.changes import Change, apply_changes
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.schema.documents import (
    CARD_EMBEDDINGS,
    CARDS,
    RETRIEVAL_INDEX,
    RETRIEVAL_INDEX_SHARDS,
    Card,
    CardEmbedding,
)

pytestmark = pytest.mark.emulator

MODEL = "test-model"
DIM = 8
IDS = [f"k{i}" for i in range(8)]
WORDS = ["rebase", "merge", "onto", "tide", "moon", "stash", "reflog", "HEAD~3"]


def _vector(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def _store(db, owner: str, cid: str, card: Card | None, vector: np.ndarray | None) -> None:
    """The card as the trigger would see it, with its vector stored as embedCard stores it."""
    if card is None:
        db.collection(CARDS).document(cid).delete()
        db.collection(CARD_EMBEDDINGS).document(cid).delete()
        return
    db.collection(CARDS).document(cid).set(card.to_dict())
    if vector is not None:
        stored = CardEmbedding(MODEL, DIM, pack(vector), text_hash(card.title, card.body), owner=owner)
        db.collection(CARD_EMBEDDINGS).document(cid).set(stored.to_dict())


op = st.tuples(
    st.sampled_from(IDS),
    st.sampled_from(["create", "edit", "delete", "visibility", "tags", "embed"]),
    st.integers(0, 10_000),
)


def _change(owner: str, state: dict[str, Card], cid: str, kind: str, n: int) -> Change:
    card = state.get(cid)
    vector = None
    if kind == "delete" or (card is None and kind != "create"):
        state.pop(cid, None)
        return Change(cid, None)
    if kind in ("create", "edit"):
        words = " ".join(WORDS[(n + i) % len(WORDS)] for i in range(n % 5 + 1))
        card = Card(f"{WORDS[n % len(WORDS)]} notes", words, owner)
    elif kind == "visibility":
        assert card is not None
        vis = ["private", "public"][n % 2]
        card = Card(card.title, card.body, owner, vis, viewers=["v1"] if vis == "private" and n % 3 else [])
    elif kind == "tags":
        assert card is not None
        card = Card(card.title, card.body, owner, card.visibility, card.viewers, tags=[f"t{n % 3}"])
    else:
        assert card is not None
        vector = _vector(n)
    state[cid] = card
    return Change(cid, card, vector)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(op, min_size=1, max_size=24), batch=st.sampled_from([1, 3, 64]))
def test_changes_applied_in_batches_leave_the_index_a_rebuild_would_make(db, ops, batch):
    owner = f"o{uuid.uuid4().hex[:8]}"
    rebuild(db, owner, MODEL)
    state: dict[str, Card] = {}
    pending: list[Change] = []
    for key, kind, n in ops:
        # Ids of this example alone: the store is emptied per test, not per example, and a card
        # left by an earlier example (its stored vector) must not stand in for this one's.
        cid = f"{owner}_{key}"
        ch = _change(owner, state, cid, kind, n)
        _store(db, owner, cid, ch.card, ch.vector)
        pending.append(ch)
        if len(pending) == batch:
            apply_changes(db, owner, pending, MODEL)
            pending = []
    apply_changes(db, owner, pending, MODEL)
    public = {cid for cid, card in state.items() if card.visibility == "public"}
    for partition, expected in ((False, set(state)), (True, public)):
        incremental = reader.all_entries(db, owner, partition)
        rebuild(db, owner, MODEL, public=partition)
        rebuilt = reader.all_entries(db, owner, partition)
        assert set(incremental) == set(rebuilt) == expected
        for cid, entry in rebuilt.items():
            assert entry.same_as(incremental[cid]), cid


def test_a_change_to_a_private_card_leaves_the_public_partition_unwritten(db):
    owner = "quiet"
    _store(db, owner, "p", Card("moon", "tide", owner, "public"), _vector(1))
    rebuild(db, owner, MODEL)
    rebuild(db, owner, MODEL, public=True)
    version = shards.read_head(db, owner, public=True)["version"]
    secret = Card("vault", "the code is 4711", owner)
    _store(db, owner, "s", secret, _vector(2))
    apply_changes(db, owner, [Change("s", secret, _vector(2))], MODEL)
    assert shards.read_head(db, owner, public=True)["version"] == version
    assert set(reader.all_entries(db, owner)) == {"p", "s"} and set(reader.all_entries(db, owner, True)) == {"p"}
    apply_changes(db, owner, [Change("p", Card("moon", "tide", owner))], MODEL)  # made private
    assert set(reader.all_entries(db, owner, True)) == set()


def test_concurrent_writers_lose_no_change(db):
    owner = "racer"
    rebuild(db, owner, MODEL)
    cards = {f"r{i}": Card(f"card {i}", "merge onto rebase", owner) for i in range(12)}
    for cid, card in cards.items():
        _store(db, owner, cid, card, _vector(hash(cid) % 1000))

    def write(ids):
        for cid in ids:
            apply_changes(db, owner, [Change(cid, cards[cid], _vector(hash(cid) % 1000))], MODEL)

    threads = [threading.Thread(target=write, args=(list(cards)[k::3],)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(reader.all_entries(db, owner)) == set(cards)
    head, public = shards.read_head(db, owner), shards.read_head(db, owner, public=True)
    assert head is not None and head["count"] == len(cards) and public is not None and public["count"] == 0
    # Replaced shards are gone: only the heads' remain.
    left = {s.id for s in db.collection(RETRIEVAL_INDEX_SHARDS).stream()}
    assert left == set(head["shards"]) | set(public["shards"])


def test_a_warm_reader_reads_the_head_alone_and_sees_a_new_version_whole(db):
    owner = "reader"
    for i in range(30):
        _store(db, owner, f"w{i:02d}", Card(f"card {i}", "tide moon", owner), _vector(i))
    rebuild(db, owner, MODEL)
    reader.clear_cache()
    _, first = reader.load(db, owner)
    assert shards.read_stats() == shards.ReadStats(heads=1, shards=1)
    _, again = reader.load(db, owner)
    assert again is first and shards.read_stats() == shards.ReadStats(heads=2, shards=1)
    new = Card("new card", "reflog stash", owner)
    _store(db, owner, "w99", new, None)
    apply_changes(db, owner, [Change("w99", new)], MODEL)
    _, after = reader.load(db, owner)
    assert "w99" in after.row_of and len(after) == 31
    assert not after.has_vector[after.row_of["w99"]]


def test_an_edit_without_a_new_vector_keeps_the_vector_only_while_the_text_is_the_same(db):
    owner = "keeper"
    card = Card("moon", "tide", owner)
    _store(db, owner, "m", card, _vector(1))
    rebuild(db, owner, MODEL)
    public = Card("moon", "tide", owner, "public")
    apply_changes(db, owner, [Change("m", public)], MODEL)
    entry = reader.all_entries(db, owner)["m"]
    assert entry.visibility == "public" and entry.vector is not None
    edited = Card("moon", "tides and more", owner, "public")
    apply_changes(db, owner, [Change("m", edited)], MODEL)
    assert reader.all_entries(db, owner)["m"].vector is None


def test_an_index_built_with_older_terms_is_rebuilt_on_the_next_change(db):
    """A head that does not record today's BM25 terms (built before a tokenizer change) is not
    patched with entries tokenised differently: the next change rebuilds it whole."""
    owner = f"u{uuid.uuid4().hex[:8]}"
    _store(db, owner, "a", Card("répertoire", "créer un répertoire", owner), _vector(1))
    rebuild(db, owner, MODEL)
    head = shards.read_head(db, owner)
    assert shards.is_current(head, MODEL)
    db.collection(RETRIEVAL_INDEX).document(shards.index_key(owner, False)).update({"terms": 1})
    assert not shards.is_current(shards.read_head(db, owner), MODEL)
    added = Card("mkdir", "creer des repertoires", owner)
    _store(db, owner, "b", added, _vector(2))
    apply_changes(db, owner, [Change("b", added, _vector(2))], MODEL)
    assert shards.is_current(shards.read_head(db, owner), MODEL)
    loaded = reader.load(db, owner)
    assert loaded is not None and set(loaded[1].row_of) == {"a", "b"}


def test_an_index_whose_shard_was_deleted_under_its_head_is_rebuilt_by_the_next_change(db):
    """A wiped or half-restored database can leave a head naming a shard that is gone: reading again
    never finds it, so the next reader reports no index and the next change rebuilds it."""
    owner = "wiped"
    cards = {f"d{i}": Card(f"card {i}", "tide moon", owner) for i in range(6)}
    for cid, card in cards.items():
        _store(db, owner, cid, card, _vector(int(cid[1:])))
    rebuild(db, owner, MODEL)
    head = shards.read_head(db, owner)
    assert head is not None
    db.collection(RETRIEVAL_INDEX_SHARDS).document(head["shards"][0]).delete()
    reader.clear_cache()
    assert reader.load(db, owner) is None
    new = Card("new card", "reflog stash", owner)
    _store(db, owner, "d99", new, _vector(99))
    apply_changes(db, owner, [Change("d99", new, _vector(99))], MODEL)
    assert set(reader.all_entries(db, owner)) == set(cards) | {"d99"}
    loaded = reader.load(db, owner)
    assert loaded is not None and len(loaded[1]) == len(cards) + 1
