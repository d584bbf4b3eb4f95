"""The streamed rebuild writes the index a rebuild holding every card at once
would: read in pages of 7 or 1,000, with the slots guessed wrong or doubled,
the shards are the same bytes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cardchat.embeddings import pack
from cardchat.embeddings.text import text_hash
from cardchat.repo import embeddings as vectors
from cardchat.repo.retrieval_index import reader, rebuild, shards
from cardchat.retrieval.index_entries import Entry, encode_shard, make_entry
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, RETRIEVAL_INDEX_SHARDS, Card, CardEmbedding

MODEL = "test-model"
DIM = 8
WORDS = ["rebase", "merge", "onto", "tide", "moon", "stash", "reflog", "HEAD~3"]


def _card(i: int, owner: str = "me") -> Card:
    body = " ".join(WORDS[(i * 3 + k) % len(WORDS)] for k in range(i % 9 + 1))
    vis = ["private", "public"][i % 2]
    return Card(f"card {i}", body, owner, vis, viewers=["v1"] if vis == "private" and i % 3 else [], tags=[f"t{i % 4}"])


def _vector(i: int) -> np.ndarray:
    v = np.random.default_rng(i).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def _entries(n: int) -> list[Entry]:
    """n entries in id order, every fifth without a vector (the first ones included)."""
    return [make_entry(f"c{i:03d}", _card(i), None if i % 5 == 0 else _vector(i)) for i in range(n)]


def _held_at_once(entries: list[Entry], dim: int) -> list[bytes]:
    """The shards as the rebuild made them before it streamed: every entry in memory."""
    per_entry = len(encode_shard(entries[:200], dim)) / max(1, min(200, len(entries)))
    slots = max(1, math.ceil(per_entry * len(entries) / rebuild.TARGET_SHARD_BYTES))
    while True:
        groups: list[list[Entry]] = [[] for _ in range(slots)]
        for e in entries:
            groups[shards.slot_of(e.id, slots)].append(e)
        blobs = [encode_shard(sorted(g, key=lambda e: e.id), dim) for g in groups]
        if all(len(b) <= rebuild.MAX_SHARD_BYTES for b in blobs):
            return blobs
        slots *= 2


def _streamed(entries: list[Entry], page: int, expected: int) -> list[bytes]:
    held = rebuild.Shards(expected)
    for start in range(0, len(entries), page):
        held.add(entries[start : start + page])
    return held.blobs()


@pytest.mark.parametrize("expected", [0, 300, 5000])  # the count guessed low, right, high
@pytest.mark.parametrize("page", [7, 1000])
def test_entries_in_pages_pack_into_the_shards_of_all_at_once(monkeypatch, page, expected):
    monkeypatch.setattr(rebuild, "TARGET_SHARD_BYTES", 4_000)  # ~300 entries: several slots
    entries = _entries(300)
    want = _held_at_once(entries, DIM)
    assert len(want) > 3
    assert _streamed(entries, page, expected) == want


def test_a_shard_too_big_doubles_the_slots_as_before(monkeypatch):
    monkeypatch.setattr(rebuild, "TARGET_SHARD_BYTES", 4_000)
    monkeypatch.setattr(rebuild, "MAX_SHARD_BYTES", 2_500)  # the first try cannot fit
    entries = _entries(300)
    want = _held_at_once(entries, DIM)
    assert _streamed(entries, 7, 300) == want


def _seed(db, owner: str, n: int) -> None:
    batch = db.batch()
    for i in range(n):
        card = _card(i, owner)
        cid = f"{owner}-{i:03d}"
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
        if i % 5:
            stored = CardEmbedding(MODEL, DIM, pack(_vector(i)), text_hash(card.title, card.body), owner=owner)
            batch.set(db.collection(CARD_EMBEDDINGS).document(cid), stored.to_dict())
    batch.commit()
    db.collection(CARDS).document("someone-else").set(_card(1, "other").to_dict())


def _shards(db, owner: str) -> tuple[dict, list[bytes]]:
    head = shards.read_head(db, owner)
    assert head is not None
    refs = [db.collection(RETRIEVAL_INDEX_SHARDS).document(d) for d in head["shards"]]
    data = {s.id: s.get("data") for s in db.get_all(refs)}
    kept = {k: head[k] for k in ("slots", "dim", "count", "model")}
    return kept, [data[d] for d in head["shards"]]


@pytest.mark.emulator
def test_a_rebuild_reading_7_cards_a_page_writes_the_index_of_one_reading_1000(db, monkeypatch):
    monkeypatch.setattr(rebuild, "TARGET_SHARD_BYTES", 1_000)  # several slots for 50 cards
    _seed(db, "me", 50)
    vectors.clear_cache()
    rebuild.rebuild(db, "me", MODEL, page_size=1000)
    assert vectors.cache_stats()["entries"] == 0  # read to be quantised, not kept
    whole = _shards(db, "me")
    rebuild.rebuild(db, "me", MODEL, page_size=7)
    paged = _shards(db, "me")
    assert paged == whole
    assert whole[0]["count"] == 50 and whole[0]["dim"] == DIM and whole[0]["slots"] > 1
    assert set(reader.all_entries(db, "me")) == {f"me-{i:03d}" for i in range(50)}
    left = {s.id for s in db.collection(RETRIEVAL_INDEX_SHARDS).stream()}
    assert len(left) == whole[0]["slots"]  # the first rebuild's shards are gone
