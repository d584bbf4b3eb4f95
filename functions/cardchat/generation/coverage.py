"""Coverage: do the chat's cards cover the question an answer was given?

One rule, the same for every provider, decided when an answer completes
(ChatMessage.coverage) from evidence about that answer:

- declined: the answer opens by saying the cards do not cover the question
  (providers/declining.py: "Your cards don't seem to cover this."; the
  offline answerer writes it when no sentence clears its threshold, keyed
  models are told to in their system text);
- claims and cited: its claims, and those citing a card of the background,
  by the shared claims rule (generation/claims.py, common/claims.json);
- match: the retrieval score of the best card it cites, the cosine
  similarity between the question and that card's stored vector (the dense
  ranker's score); None when no cited card has a vector.

The rule:

- `none` when the answer declines, or when none of its claims cites a card
  (whatever it says then rests on no card);
- `covered` when at least MIN_CITED_SHARE of its claims cite a card and its
  best cited card matches the question at least STRONG_MATCH (or no cited
  card has a vector to tell);
- `partial` otherwise: it rests on cards, but leaves much uncited or cites
  cards that only loosely match the question.

A question posted by the SPA's "Ask anyway" starts with a mark
(declining.ANYWAY) that is not part of the question the evidence compares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from cardchat.generation import claims
from cardchat.providers.declining import DECLINED

Coverage = Literal["covered", "partial", "none"]
#: Share of an answer's claims that must cite a card for it to be covered.
MIN_CITED_SHARE = 0.75
#: Cosine similarity (the embedder's query against a card) from which a cited card
#: answers the question rather than touching on it (docs/coverage.md: how it was chosen).
STRONG_MATCH = 0.35


@dataclass(frozen=True)
class Evidence:
    declined: bool
    claims: int
    cited: int
    match: float | None


def decide(e: Evidence) -> Coverage:
    """The rule of the module docstring."""
    if e.declined or e.cited == 0:
        return "none"
    if e.cited >= MIN_CITED_SHARE * e.claims and (e.match is None or e.match >= STRONG_MATCH):
        return "covered"
    return "partial"


def declines(markdown: str) -> bool:
    return any(block.lstrip().startswith(DECLINED) for block in claims.blocks(markdown)[:1])


def cited_cards(markdown: str, card_ids: Sequence[str]) -> list[str]:
    """The ids of the cards an answer cites, in order of first use."""
    return [card_ids[n - 1] for n in claims.citations(markdown, card_ids)]


def evidence(
    markdown: str,
    card_ids: Sequence[str],
    query_vector: np.ndarray | None,
    card_vectors: Mapping[str, np.ndarray],
) -> Evidence:
    """The evidence about an answer citing the background `card_ids`, given the question's
    vector (None: no embedder) and the stored vectors of the cards it cites (missing: none)."""
    names = claims.citable(card_ids)
    judged = [s for block in claims.blocks(markdown) for s in claims.sentences(block, names) if s.claim]
    scores = [
        float(np.dot(query_vector, card_vectors[c]))
        for c in cited_cards(markdown, card_ids)
        if query_vector is not None and c in card_vectors
    ]
    return Evidence(
        declined=declines(markdown),
        claims=len(judged),
        cited=sum(1 for s in judged if s.cited),
        match=round(max(scores), 4) if scores else None,
    )
