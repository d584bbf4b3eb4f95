"""Resolving a chat's candidates through the retrieval index (chat/candidates.py):
culled exactly as permissions.readable_cards / CollectionQuery.admits cull, and a
warm call's reads do not grow with the collection."""

from __future__ import annotations

import numpy as np
import pytest

from cardchat.access import permissions
from cardchat.chat import candidates
from cardchat.chat import create as chats
from cardchat.embeddings import get_embedder, pack
from cardchat.embeddings.text import embeddable_and_hash, text_hash
from cardchat.llm import models
from cardchat.parsing.collection_query import CollectionQuery
from cardchat.repo import cards as card_repo
from cardchat.repo.retrieval_index import reader, shards
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.retrieval.rank import sparse_scores
from cardchat.schema.accounts import CARD_SOURCES, CardSources
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card, CardEmbedding

pytestmark = pytest.mark.emulator


def _put(db, cid: str, card: Card, embed: bool = True) -> None:
    db.collection(CARDS).document(cid).set(card.to_dict())
    if embed:
        v = np.random.default_rng(abs(hash(cid)) % 2**32).normal(size=384).astype(np.float32)
        v /= np.linalg.norm(v)
        emb = CardEmbedding(get_embedder().model_id, 384, pack(v), text_hash(card.title, card.body), owner=card.owner)
        db.collection(CARD_EMBEDDINGS).document(cid).set(emb.to_dict())


def _world(db) -> dict[str, Card]:
    cards = {
        "m1": Card("rebase notes", "git rebase --onto", "me", tags=["git"]),
        "m2": Card("tides", "the moon pulls the ocean", "me", "public", tags=["sea"]),
        "m3": Card("stash", "git stash pop", "me", "private", viewers=["you"], tags=["git"]),
        "y1": Card("their rebase", "rebase interactive", "you", "private", viewers=["me"], tags=["git"]),
        "y2": Card("their secret", "rebase secret", "you", "private"),
        "y3": Card("their public", "moon and rebase", "you", "public", tags=["sea"]),
    }
    for cid, card in cards.items():
        _put(db, cid, card)
    db.collection(CARD_SOURCES).document("me").set(CardSources("me", accepted_sharers=["you"]).to_dict())
    return cards


def test_an_id_list_is_culled_as_readable_cards_culls_it(db):
    cards = _world(db)
    rebuild(db, "me")
    _put(db, "m4", Card("late", "made after the index", "me"), embed=False)  # not indexed yet
    ids = ["y2", "m2", "nope", "y1", "m4", "m1", "y3", "m2"]
    pool = candidates.resolve(db, "me", ids)
    want = permissions.readable_cards(card_repo.load_cards(db, ids), "me", ids)
    assert pool.ids == list(want) == ["m2", "y1", "m4", "m1", "y3"]
    assert "y2" not in pool.ids and cards["y2"].owner == "you"


@pytest.mark.parametrize(
    "query",
    [
        CollectionQuery(),
        CollectionQuery(scope="mine"),
        CollectionQuery(scope="shared"),
        CollectionQuery(scope="mine_and_shared"),
        CollectionQuery(scope="owner", owner="you"),
        CollectionQuery(scope="owner", owner="me"),
        CollectionQuery(tag="git"),
        CollectionQuery(visibility="public"),
        CollectionQuery(scope="mine_and_shared", tag="git"),
        CollectionQuery(text="rebase"),
        CollectionQuery(scope="owner", owner="you", text="rebase"),
        CollectionQuery(scope="mine", text="moon ocean"),
    ],
)
def test_a_query_admits_what_collection_query_admits(db, query):
    cards = _world(db)
    pool = candidates.resolve(db, "me", query=query)
    admitted = [c for c in sorted(cards) if query.admits(cards[c], "me")]
    if query.text:
        texts = [embeddable_and_hash(cards[c].title, cards[c].body)[0] for c in admitted]
        scores = sparse_scores(query.text, admitted, texts)
        admitted = [c for c, s in zip(admitted, scores) if s > 0]
    assert sorted(pool.ids) == sorted(admitted)
    assert "y2" not in pool.ids


def test_a_card_deleted_or_withdrawn_after_indexing_is_never_packed(db):
    _world(db)
    rebuild(db, "me")
    db.collection(CARDS).document("m1").delete()  # the index still lists it
    spec = models.MODELS["offline-extractive"]
    chosen = chats.select_background(db, "me", ["m1", "m2", "y1"], "rebase", spec, 0.5, "")
    assert "m1" not in chosen.background.card_ids and "m1" not in chosen.cards
    assert set(chosen.background.card_ids) == {"m2", "y1"}


def _deck(db, owner: str, n: int) -> list[str]:
    ids = []
    batch = db.batch()
    for i in range(n):
        card = Card(f"card {i}", "rebase merge stash " * 40, owner)
        cid = f"{owner}-{i:04d}"
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
        v = np.random.default_rng(i).normal(size=384).astype(np.float32)
        emb = CardEmbedding(get_embedder().model_id, 384, pack(v / np.linalg.norm(v)), text_hash(card.title, card.body))
        batch.set(db.collection(CARD_EMBEDDINGS).document(cid), emb.to_dict())
        ids.append(cid)
        if i % 200 == 199:
            batch.commit()
            batch = db.batch()
    batch.commit()
    return ids


def test_a_warm_call_reads_the_head_and_the_packed_cards_whatever_the_collection(db):
    spec = models.MODELS["claude-sonnet-4-6"]
    reads = {}
    for n in (200, 600):
        owner = f"reader{n}"
        _deck(db, owner, n)
        rebuild(db, owner)
        query = CollectionQuery(scope="mine")
        chats.select_background(db, owner, query, "rebase", spec, 0.01, "")  # warms the caches
        reader.clear_cache()
        chats.select_background(db, owner, query, "rebase", spec, 0.01, "")  # reads the index
        card_repo.READS.clear()
        shards.reads.heads = shards.reads.shards = 0
        chosen = chats.select_background(db, owner, query, "rebase", spec, 0.01, "")
        assert len(chosen.visible) == n and chosen.background.card_ids
        stats = shards.read_stats()
        reads[n] = {"heads": stats.heads, "shards": stats.shards, **card_repo.READS}
    assert reads[200] == reads[600]
    assert reads[600]["heads"] == 1 and reads[600]["shards"] == 0
    assert reads[600]["cards"] < 100  # the packed ones and FETCH_SLACK more
