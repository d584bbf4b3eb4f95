"""An answer's `coverage` (generation/coverage.py's rule), decided as its run finishes:
the evidence read from the answer and the background's card ids, and the
retrieval score of the cards it cites (their stored vectors against the
question's, by the embedder the ranking uses). A failure to read the
vectors leaves the score unknown rather than failing a complete answer."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from cardchat.generation import coverage
from cardchat.providers.declining import question_of

if TYPE_CHECKING:
    from cardchat.repo.db import Db

log = logging.getLogger(__name__)


def coverage_of(db: Db, question: str, content: str, card_ids: Sequence[str]) -> coverage.Coverage:
    cited = [] if coverage.declines(content) else coverage.cited_cards(content, card_ids)
    query_vector, vectors = _vectors(db, question, cited) if cited else (None, {})
    return coverage.decide(coverage.evidence(content, card_ids, query_vector, vectors))


def _vectors(db: Db, question: str, card_ids: list[str]) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
    """The question's vector and the fresh stored vectors of `card_ids` (none without one)."""
    from cardchat.embeddings import get_embedder
    from cardchat.embeddings.text import text_hash
    from cardchat.repo.cards import load_cards
    from cardchat.repo.embeddings import load_embeddings

    try:
        embedder = get_embedder()
        cards = load_cards(db, card_ids)
        vectors = load_embeddings(
            db, {c: text_hash(card.title, card.body) for c, card in cards.items()}, embedder.model_id
        )
        if not vectors:
            return None, {}
        return embedder.embed_query(question_of(question)), vectors
    except Exception as e:  # an embedding API failure: the score is unknown, the answer stays complete
        log.warning("coverage: the cited cards' vectors are unavailable (%s)", type(e).__name__)
        return None, {}
