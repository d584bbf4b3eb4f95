"""The retrieval index ranks exactly as rank_with_scores does over the same cards.

No Firestore here: entries are made from cards, packed into shard blobs and
unpacked (the bytes the repo stores), then ranked from the snapshot.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cardchat.embeddings.text import embeddable_and_hash
from cardchat.retrieval.index_entries import decode_shard, dequantise, encode_shard, make_entry, quantise, unpack_shard
from cardchat.retrieval.index_snapshot import Part, from_entries, from_packed, rank_pool
from cardchat.retrieval.rank import RankingConfig, rank_with_scores
from cardchat.schema.documents import Card

WORDS = (
    "rebase merge branch commit onto HEAD~3 stash reflog cherry-pick partnerpensioen pensioen tide moon ocean "
    "salt NullPointerException core.autocrlf index tree blob tag remote fetch push pull worktree bisect"
).split()
DIM = 16


def _deck(n: int, seed: int = 7) -> tuple[list[str], dict[str, Card], dict[str, np.ndarray]]:
    rnd = random.Random(seed)
    rng = np.random.default_rng(seed)
    ids = [f"card{i:04d}" for i in range(n)]
    cards = {
        c: Card(
            title=" ".join(rnd.choices(WORDS, k=rnd.randint(1, 4))),
            body=" ".join(rnd.choices(WORDS, k=rnd.randint(0, 60))),
            owner="me",
            visibility=rnd.choice(["private", "public"]),
            tags=rnd.sample(["a", "b", "c"], rnd.randint(0, 2)),
        )
        for c in ids
    }
    vectors = {}
    for c in ids:
        if rnd.random() < 0.8:  # a fifth not embedded yet
            v = rng.normal(size=DIM).astype(np.float32)
            vectors[c] = v / np.linalg.norm(v)
    return ids, cards, vectors


def _expected(query, qvec, order, cards, entries, config=None):
    """rank_with_scores over the cards in `order`, given the index's own (dequantised) vectors."""
    texts = [embeddable_and_hash(cards[c].title, cards[c].body)[0] for c in order]
    hashes = [entries[c].text_hash for c in order]
    matrix = np.zeros((len(order), DIM), np.float32)
    has = np.zeros(len(order), bool)
    for i, c in enumerate(order):
        e = entries[c]
        if e.vector is not None:
            matrix[i] = dequantise(e.vector, e.scale)
            has[i] = True
    return rank_with_scores(query, qvec, order, texts, matrix, has, config, hashes)


@pytest.mark.parametrize("config", [None, RankingConfig(fusion="rrf"), RankingConfig(mode="sparse")])
@pytest.mark.parametrize("query", ["rebase onto HEAD~3", "pensioen", "moon tides", "core.autocrlf NullPointer"])
def test_ranking_over_the_index_equals_rank_with_scores(query, config):
    ids, cards, vectors = _deck(300)
    entries = {c: make_entry(c, cards[c], vectors.get(c)) for c in ids}
    # Two shards, as stored; the candidates a shuffled subset spread over both.
    halves = [ids[:150], ids[150:]]
    packed = [unpack_shard(encode_shard([entries[c] for c in h], DIM)) for h in halves]
    snap = from_packed("me", packed)
    rnd = random.Random(query)
    order = rnd.sample(ids, 220)
    part = Part(snap, np.array([snap.row_of[c] for c in order]), np.arange(len(order)))
    qvec = np.random.default_rng(3).normal(size=DIM).astype(np.float32)
    got = rank_pool(query, qvec, [part], len(order), config)
    want = _expected(query, qvec, order, cards, entries, config)
    assert got.order == want.order
    np.testing.assert_allclose(got.scores, want.scores, rtol=1e-6, atol=1e-9)


def test_candidates_from_two_snapshots_rank_as_one_list():
    ids, cards, vectors = _deck(120, seed=11)
    entries = {c: make_entry(c, cards[c], vectors.get(c)) for c in ids}
    own = from_packed("me", [unpack_shard(encode_shard([entries[c] for c in ids[:80]], DIM))])
    loose = from_entries("me", [entries[c] for c in ids[80:]], DIM)
    order = random.Random(5).sample(ids, len(ids))
    pos = {c: i for i, c in enumerate(order)}
    parts = [
        Part(own, np.array([own.row_of[c] for c in ids[:80]]), np.array([pos[c] for c in ids[:80]])),
        Part(loose, np.arange(40), np.array([pos[c] for c in ids[80:]])),
    ]
    qvec = np.random.default_rng(4).normal(size=DIM).astype(np.float32)
    got = rank_pool("merge branch worktree", qvec, parts, len(order))
    assert got.order == _expected("merge branch worktree", qvec, order, cards, entries).order


def test_quantised_vectors_stay_close_to_the_originals():
    rng = np.random.default_rng(0)
    for _ in range(50):
        v = rng.normal(size=384).astype(np.float32)
        v /= np.linalg.norm(v)
        q, scale = quantise(v)
        assert float(np.dot(dequantise(q, scale), v)) > 0.999


def test_a_shard_round_trips_every_field():
    ids, cards, vectors = _deck(40, seed=2)
    entries = [make_entry(c, cards[c], vectors.get(c)) for c in ids]
    back, dim = decode_shard(encode_shard(entries, DIM))
    assert dim == DIM and len(back) == len(entries)
    assert all(a.same_as(b) for a, b in zip(entries, back))
    assert any(e.vector is None for e in back) and any(e.vector is not None for e in back)
