"""The per-turn metric: the share of follow-ups whose answering card is in the
context when the follow-up is answered, with the background fixed at
createChat (before per-turn retrieval) and with per-turn retrieval
(generation/turn_context.py).

A follow-up set (eval/followups/*.json, format in eval/README.md) pairs a
first question with a follow-up on another topic and the cards that answer
the follow-up. Each pair is replayed as a chat would run it, offline: the
first question ranked over the deck (retrieval.rank.rank_cards) and packed into
the chat's budget (createChat's background_budget and fit_background), then
the follow-up's additions chosen by the same plan_turn the generation run
uses, within the same per-turn budget. A pair counts when any of its
answering cards is in the context at answer time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardchat.admin.evaluation import ROOT, VectorCache, embed_queries, report_sets, set_cards

FOLLOWUPS_DIR = ROOT / "eval" / "followups"


@dataclass
class Pair:
    first: str
    follow_up: str
    answering: list[str]


@dataclass
class FollowupSet:
    name: str
    model: str
    background_fraction: float
    cards: list[dict[str, Any]]  # id, title, body
    pairs: list[Pair]


def load_followups(path: Path) -> FollowupSet:
    data = json.loads(path.read_text(encoding="utf-8"))
    cards = set_cards(data)
    known = {c["id"] for c in cards}
    pairs = []
    for i, p in enumerate(data["pairs"]):
        missing = [c for c in p["answering"] if c not in known]
        if missing or not p["answering"]:
            raise ValueError(f"{path.name} pair #{i} ({p['follow_up']!r}): unknown answering ids {missing}")
        pairs.append(Pair(p["first"], p["follow_up"], list(p["answering"])))
    return FollowupSet(data.get("name", path.stem), data["model"], float(data["background_percentage"]), cards, pairs)


@dataclass
class TurnMetric:
    fixed: float  # answering card in the createChat background
    per_turn: float  # ... or added by the follow-up's retrieval (turn_context: fused with the previous question)
    question_only: float  # the same, ranking the follow-up alone
    added: float  # cards added per follow-up, on average


class _Deck:
    """A set's cards ready to rank: ids, embeddable texts, hashes, vectors."""

    def __init__(self, fs: FollowupSet, embedder: Any, cache: VectorCache) -> None:
        from cardchat.embeddings.text import embeddable_text, text_hash
        from cardchat.schema.documents import Card

        self.ids = [c["id"] for c in fs.cards]
        self.cards = {c["id"]: Card(c["title"], c["body"], "owner") for c in fs.cards}
        self.texts = [embeddable_text(c["title"], c["body"]) for c in fs.cards]
        self.hashes = [text_hash(c["title"], c["body"]) for c in fs.cards]
        self.vectors = cache.embed(embedder, self.texts, self.hashes)
        self.embedder, self.cache = embedder, cache

    def rank(self, query: str) -> list[str]:
        from cardchat.retrieval.rank import rank_cards

        qv = embed_queries(self.embedder, [query])[0]
        order = rank_cards(query, qv, self.ids, self.texts, self.vectors, None, None, self.hashes)
        return [self.ids[i] for i in order]

    def scores(self, query: str) -> dict[str, float | None]:
        qv = embed_queries(self.embedder, [query])[0]
        sims = (self.vectors @ np.asarray(qv, dtype=np.float32)).tolist()
        return {c: round(s, 4) for c, s in zip(self.ids, sims)}


def replay(fs: FollowupSet, deck: _Deck) -> TurnMetric:
    from cardchat.chat.create import background_budget
    from cardchat.chat.history_window import turn_budget
    from cardchat.generation.turn_context import Ranked, fuse, plan_turn, turn_query, turn_room
    from cardchat.llm.models import MODELS
    from cardchat.retrieval.background import card_numbers, fit_background

    spec = MODELS[fs.model]
    index = {c: i for i, c in enumerate(deck.ids)}
    fixed = per_turn = alone = added = 0
    for p in fs.pairs:
        budget = background_budget(spec, fs.background_fraction, p.first)
        bg = fit_background([(c, deck.cards[c]) for c in deck.rank(p.first)], budget, spec.tokenizer)
        fixed += any(c in bg.card_ids for c in p.answering)
        room = turn_room(spec, budget, bg.tokens, [p.first, p.follow_up])
        by_question = [index[c] for c in deck.rank(p.follow_up)]
        with_previous = [index[c] for c in deck.rank(turn_query(p.follow_up, p.first))]
        for order, shipped in ((fuse(by_question, with_previous, len(deck.ids)), True), (by_question, False)):
            ranked = Ranked([deck.ids[i] for i in order], deck.cards, deck.scores(p.follow_up))
            plan = plan_turn(bg.text, bg.tokens, bg.card_ids, [], ranked, 3, room, turn_budget(spec), spec.tokenizer)
            present = {plan.card_ids[n - 1] for n in card_numbers(plan.text)}
            hit = any(c in present for c in p.answering)
            if shipped:
                per_turn += hit
                added += len(plan.turn.added)
            else:
                alone += hit
    n = max(len(fs.pairs), 1)
    return TurnMetric(fixed / n, per_turn / n, alone / n, added / n)


def report(path: Path, embedder: Any, cache: VectorCache) -> str:
    """One follow-up set's line."""
    fs = load_followups(path)
    m = replay(fs, _Deck(fs, embedder, cache))
    return (
        f"{fs.name} ({len(fs.pairs)} follow-ups, {fs.model}, background {fs.background_fraction:.0%}): "
        f"answering card in the context: fixed background {m.fixed:.3f}, per-turn retrieval {m.per_turn:.3f} "
        f"(follow-up alone as the query: {m.question_only:.3f}); {m.added:.1f} cards added per turn"
    )


def main(paths: Sequence[str], model: str | None = "minilm") -> int:
    """One line per follow-up set (`cardchat eval-turns`; default: every eval/followups/*.json)."""
    return report_sets(paths, FOLLOWUPS_DIR, model, report)
