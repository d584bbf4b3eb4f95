"""Embedding every card whose stored vector is missing or stale.

Stale means the card's text hash or the embedding model changed; the
comparison is repo.embeddings.load_embeddings's, so backfill and createChat
agree on what is fresh.
"""

from __future__ import annotations

from typing import Any

from cardchat.schema import Card

BATCH = 64


def backfill(db: Any, model: str | None = None, limit: int | None = None) -> tuple[int, int]:
    """Returns (cards embedded now, cards that were already fresh)."""
    from tqdm import tqdm

    from cardchat.embeddings import get_embedder
    from cardchat.embeddings.text import text_hash
    from cardchat.repo import card_writes
    from cardchat.repo.embeddings import embed_and_store, load_embeddings

    embedder = get_embedder(model)
    cards: dict[str, Card] = dict(card_writes.iter_cards(db))
    wanted = {cid: text_hash(c.title, c.body) for cid, c in cards.items()}
    fresh = load_embeddings(db, wanted, embedder.model_id)
    todo = sorted(cid for cid in cards if cid not in fresh)
    if limit is not None:
        todo = todo[:limit]
    with tqdm(total=len(todo), desc=f"embed ({embedder.model_id})", unit="card") as bar:
        for i in range(0, len(todo), BATCH):
            chunk = todo[i : i + BATCH]
            embed_and_store(db, {cid: cards[cid] for cid in chunk}, embedder)
            bar.update(len(chunk))
    return len(todo), len(fresh)
