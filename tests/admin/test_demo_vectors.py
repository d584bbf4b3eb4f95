"""The demo deck's vectors, made once into a cache and stored with the cards: a seeded workspace is
embedded at once, and only a card whose text changed is embedded again."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cardchat.admin.demo_vectors import cache_file, fill, load, seed
from cardchat.embeddings import get_embedder
from cardchat.embeddings.text import embeddable_and_hash, text_hash
from cardchat.repo.embeddings import clear_cache, load_embeddings
from cardchat.schema.documents import CARDS, Card

DECK = [
    {"id": "rebase", "title": "git rebase", "body": "Reapply commits on top of another base tip."},
    {"id": "stash", "title": "git stash", "body": "Stash the changes in a dirty working directory away."},
]


def _deck(tmp_path, cards):
    path = tmp_path / "deck.json"
    path.write_text(json.dumps({"cards": cards}))
    return path


def test_the_deck_is_embedded_once_and_a_changed_card_alone_again(tmp_path):
    deck = _deck(tmp_path, DECK)
    assert (fill(deck, tmp_path, "minilm").made, fill(deck, tmp_path, "minilm").made) == (2, 0)
    edited = [DECK[0], {**DECK[1], "body": "Save the dirty working tree for later."}]
    done = fill(_deck(tmp_path, edited), tmp_path, "minilm")
    assert (done.made, done.reused) == (1, 1)
    cached = load(cache_file(tmp_path, get_embedder("minilm").model_id))
    assert set(cached) == {text_hash(c["title"], c["body"]) for c in edited}  # the old text's vector is gone


def test_seeded_cards_get_the_cached_vectors_and_the_rest_are_left(db, tmp_path):
    clear_cache()
    fill(_deck(tmp_path, DECK), tmp_path, "minilm")
    for c in DECK:
        db.collection(CARDS).document(c["id"]).set(Card(c["title"], c["body"], "demo").to_dict())
    db.collection(CARDS).document("new").set(Card("A card of its own", "Not in the deck.", "demo").to_dict())
    done = seed(db, tmp_path, "minilm")
    assert (done.stored, done.fresh, done.left) == (2, 0, 1)
    clear_cache()  # read back from Firestore, not from this process's cache
    embedder = get_embedder("minilm")
    stored = load_embeddings(db, {c["id"]: text_hash(c["title"], c["body"]) for c in DECK}, embedder.model_id)
    cached = load(cache_file(tmp_path, embedder.model_id))
    for c in DECK:
        assert np.array_equal(stored[c["id"]], cached[text_hash(c["title"], c["body"])])
    assert seed(db, tmp_path, "minilm").fresh == 2  # a second seed writes nothing again


def test_the_committed_vectors_cover_the_demo_deck():
    """A fresh clone seeds the demo workspace from `demo/`: every card of the deck has its vector there,
    and it is the one the embedder gives today (a changed model or text rule would stale it)."""
    root = Path(__file__).resolve().parents[2]
    embedder = get_embedder("minilm")
    committed = load(cache_file(root / "demo", embedder.model_id))
    cards = json.loads((root / ".cache" / "demo-deck.json").read_text())["cards"]
    texts = {}
    for card in cards:
        text, h = embeddable_and_hash(str(card.get("title") or ""), str(card.get("body") or ""))
        texts.setdefault(h, text)
    # A newer Git manual on the machine changes a few cards, which setup embeds on top: most must be there.
    covered = set(texts) & set(committed)
    assert len(covered) >= 0.9 * len(texts), f"{len(texts) - len(covered)} deck cards have no committed vector"
    sample = sorted(covered)[:: max(1, len(covered) // 3)][:3]
    fresh = embedder.embed([texts[h] for h in sample])
    for h, vector in zip(sample, fresh, strict=True):
        assert np.allclose(committed[h], vector, atol=1e-4)
