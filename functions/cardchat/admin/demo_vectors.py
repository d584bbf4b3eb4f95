"""The demo deck's vectors, made once and kept under `.cache`.

`scripts/setup` embeds the deck (`python -m cardchat demo-vectors DECK FOLDER`) and `scripts/seed`
stores those vectors with the cards (`python -m cardchat seed-vectors FOLDER`), before the retrieval
index is built. So the demo workspace is embedded the moment `scripts/dev` says ready: a newcomer's
first chat ranks by meaning as well as by keywords, and no backfill competes with it for the CPU.

A copy of the cache for today's deck is committed under `demo/`: setup starts from it, so a fresh clone
embeds only what a newer Git manual changed.

The cache maps a card's text hash (embeddings/text.py, what decides freshness) to its vector, one file
per embedding model: a regenerated deck re-embeds only the cards whose text changed, and a vector of
one model never serves another.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from cardchat.repo.db import Db


@dataclass(frozen=True)
class Filled:
    made: int  # vectors embedded now
    reused: int  # vectors the cache already held


@dataclass(frozen=True)
class Seeded:
    stored: int  # cards given their vector from the cache
    fresh: int  # cards whose stored vector was fresh already
    left: int  # cards the cache had no vector for: the backfill's


def cache_file(folder: Path, model_id: str) -> Path:
    return folder / f"demo-vectors-{re.sub(r'[^A-Za-z0-9._-]', '_', model_id)}.npz"


def load(path: Path) -> dict[str, np.ndarray]:
    """text hash -> vector; empty when there is no cache (or an unreadable one: it is rebuilt)."""
    try:
        with np.load(path) as z:
            return dict(zip(z["hashes"].tolist(), z["vectors"], strict=True))
    except (OSError, KeyError, ValueError):
        return {}


def _save(path: Path, vectors: dict[str, np.ndarray]) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")  # np.savez adds .npz to a name without it
    hashes = list(vectors)
    np.savez_compressed(tmp, hashes=np.array(hashes), vectors=np.stack([vectors[h] for h in hashes]).astype(np.float32))
    os.replace(tmp, path)  # a setup stopped halfway leaves the old cache, never half of one


def fill(deck: Path, folder: Path, model: str | None = None) -> Filled:
    """Every card of the deck (a JSON export) with its vector in the cache; only new texts are embedded."""
    from cardchat.embeddings import get_embedder
    from cardchat.embeddings.text import embeddable_and_hash

    embedder = get_embedder(model)  # loads its model only when asked to embed
    path = cache_file(folder, embedder.model_id)
    cached = load(path)
    texts: dict[str, str] = {}
    for card in json.loads(deck.read_text())["cards"]:
        text, h = embeddable_and_hash(str(card.get("title") or ""), str(card.get("body") or ""))
        texts.setdefault(h, text)
    missing = [h for h in texts if h not in cached]
    if missing or len(cached) != len(texts):
        if missing:
            cached.update(zip(missing, embedder.embed([texts[h] for h in missing]), strict=True))
        _save(path, {h: cached[h] for h in texts})  # the deck's alone: an old deck's vectors go
    return Filled(made=len(missing), reused=len(texts) - len(missing))


def seed(db: Db, folder: Path, model: str | None = None) -> Seeded:
    """Every stored card whose text the cache knows gets that vector, unless its own is fresh."""
    from cardchat.embeddings import get_embedder
    from cardchat.embeddings.text import text_hash
    from cardchat.repo import card_writes
    from cardchat.repo.embeddings import load_embeddings, store_vectors

    embedder = get_embedder(model)
    cached = load(cache_file(folder, embedder.model_id))
    cards = dict(card_writes.iter_cards(db))
    wanted = {cid: text_hash(c.title, c.body) for cid, c in cards.items()}
    fresh = load_embeddings(db, wanted, embedder.model_id, remember=False)
    found = {cid: cached[h] for cid, h in wanted.items() if cid not in fresh and h in cached}
    store_vectors(db, {cid: cards[cid] for cid in found}, found, embedder.model_id, embedder.dim)
    return Seeded(stored=len(found), fresh=len(fresh), left=len(cards) - len(fresh) - len(found))
