"""Synthetic decks for what measures loading, ranking, packing and writing rather than
embedding: bodies drawn from a small vocabulary, and random unit vectors of the offline
model's dimension stored as the cards' embeddings. The benchmarks and the tests that need
a large deck share it (`from benchmarks.decks import ...`); the domain is imported where
a card is written, so that importing the words stays light."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from cardchat.schema.documents import Card

#: The words of git notes; a deck about one subject draws on them (or on their first few).
GIT_WORDS = [
    "branch",
    "commit",
    "merge",
    "rebase",
    "stash",
    "tag",
    "remote",
    "fetch",
    "push",
    "pull",
    "index",
    "tree",
    "blob",
    "object",
    "ref",
    "reflog",
    "worktree",
    "submodule",
    "hook",
    "config",
    "diff",
    "patch",
    "bisect",
    "blame",
    "log",
]
#: GIT_WORDS and the words of office notes: a deck whose cards are about several subjects.
VOCAB = [
    *GIT_WORDS,
    "pension",
    "insurance",
    "tax",
    "policy",
    "budget",
    "meeting",
    "design",
    "review",
    "release",
    "deploy",
    "cache",
    "query",
    "index",
    "schema",
    "migration",
]
#: The offline model's dimension: a stored vector the ranking reads as its own.
DIM = 384
#: Writes per batch, under Firestore's 500.
BATCH_WRITES = 400


def words(rng: random.Random, low: int, high: int, vocab: list[str] = VOCAB) -> str:
    """Between `low` and `high` words of `vocab`, space-separated."""
    return " ".join(rng.choice(vocab) for _ in range(rng.randint(low, high)))


def unit_vector(rng: np.random.Generator) -> np.ndarray:
    """A random direction of DIM dimensions, as an embedding is stored."""
    vec = rng.standard_normal(DIM).astype(np.float32)
    vec /= np.linalg.norm(vec)
    return vec


class DeckWriter:
    """Cards, each with its stored embedding if given a vector, written in batches.
    `close()` writes what is left."""

    def __init__(self, db: Any):
        self.db, self.model_id = db, ""
        self._batch, self._pending = db.batch(), 0

    def card(self, card_id: str, card: Card, vector: np.ndarray | None = None, owner: str = "") -> None:
        """`card` as `card_id`; with `vector`, its embedding (recording `owner` when given)."""
        from cardchat.embeddings import get_embedder, pack
        from cardchat.embeddings.text import text_hash
        from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, CardEmbedding

        self._set(CARDS, card_id, card.to_dict())
        if vector is not None:
            self.model_id = self.model_id or get_embedder().model_id
            stored = CardEmbedding(self.model_id, DIM, pack(vector), text_hash(card.title, card.body), owner=owner)
            self._set(CARD_EMBEDDINGS, card_id, stored.to_dict())

    def _set(self, collection: str, doc_id: str, data: dict[str, Any]) -> None:
        self._batch.set(self.db.collection(collection).document(doc_id), data)
        self._pending += 1
        if self._pending >= BATCH_WRITES:
            self.close()

    def close(self) -> None:
        if self._pending:
            self._batch.commit()
        self._batch, self._pending = self.db.batch(), 0


def seed_owner(db: Any, n: int, owner: str) -> list[str]:
    """`n` private cards of `owner` about several subjects, each with a stored vector, as after an
    embedded import (its retrieval index is the caller's to build: `rebuild`); their ids."""
    from cardchat.schema.documents import Card

    rng = random.Random(n)
    vec_rng = np.random.default_rng(n)
    deck, ids = DeckWriter(db), []
    for i in range(n):
        body = words(rng, 20, 120)
        card = Card(f"card {i} {rng.choice(VOCAB)}", body, owner, visibility="private")
        cid = f"{owner}-{i:06d}"
        deck.card(cid, card, unit_vector(vec_rng), owner)
        ids.append(cid)
    deck.close()
    return ids
