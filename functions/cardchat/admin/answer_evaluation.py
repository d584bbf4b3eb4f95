"""The answer table: how good the answers are, not only the ranking.

An answer set (eval/answers/*.json, format in eval/README.md) labels
questions on-topic (the deck answers them) or off-topic (no card does). Each
question is answered as a new chat would answer it, offline: the question
ranked over the deck, packed into the set's background share of the model's
window (createChat's background_budget and fit_background), and answered by
the set's model, the offline answerer (providers/offline.py). The ranking is
BM25's (retrieval.rank.rank_cards, mode "sparse"): the table then needs no
vectors of the whole deck, only of the cards the answers cite.

Three figures, over every answer of the set:

- citation precision: of the (sentence, card) pairs where a sentence of the
  answer cites a card, the share where the card supports the sentence. The
  rule is lexical (`supported`): at least SUPPORT_SHARE of the sentence's
  words, its citations left out, occur in the card's title or body, a word
  being a run of letters and digits, lowercased; a word cut by an ellipsis
  ("rebas…") is left out.
- uncited-claim rate: claims without a citation naming a card (claims.py,
  the SPA's marking) over all claims.
- coverage accuracy: the share of questions whose `coverage` (generation/coverage.py,
  the rule the generation run applies, with the stored vectors' cosine as
  the retrieval score) agrees with the label: an on-topic question answered
  (`covered` or `partial`), an off-topic one declined (`none`).

A set whose thresholds were chosen on some of its questions (`"tuned_on":
"even"`) also gets the figures of the held-out rest.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardchat.admin.evaluation import ROOT, VectorCache, embed_queries, report_sets, set_cards

ANSWERS_DIR = ROOT / "eval" / "answers"
#: Share of a cited sentence's words that the cited card must hold.
SUPPORT_SHARE = 0.8
_WORD = re.compile(r"[^\W_]+(?:…)?")


@dataclass
class AnswerSet:
    name: str
    model: str
    background_percentage: float
    cards: list[dict[str, Any]]  # id, title, body
    questions: list[tuple[str, bool]]  # (question, on-topic)
    tuned_on: str = ""


@dataclass
class Judged:
    """One answer, judged."""

    question: str
    on_topic: bool
    coverage: str
    citations: int  # (sentence, card) pairs
    supported: int
    claims: int
    uncited: int
    match: float | None


@dataclass
class AnswerFigures:
    answers: list[Judged] = field(default_factory=list)

    def _sum(self, key: str) -> int:
        return sum(int(getattr(a, key)) for a in self.answers)

    @property
    def citation_precision(self) -> float:
        return self._sum("supported") / self._sum("citations") if self._sum("citations") else 1.0

    @property
    def uncited_rate(self) -> float:
        return self._sum("uncited") / self._sum("claims") if self._sum("claims") else 0.0

    def right(self, a: Judged) -> bool:
        return (a.coverage != "none") == a.on_topic

    def accuracy(self, on_topic: bool | None = None) -> float:
        pool = [a for a in self.answers if on_topic is None or a.on_topic == on_topic]
        return sum(map(self.right, pool)) / len(pool) if pool else 0.0


def load_answer_set(path: Path) -> AnswerSet:
    data = json.loads(path.read_text(encoding="utf-8"))
    questions = [(str(q["question"]), bool(q["on_topic"])) for q in data["questions"]]
    return AnswerSet(
        name=data.get("name", path.stem),
        model=data["model"],
        background_percentage=float(data["background_percentage"]),
        cards=set_cards(data),
        questions=questions,
        tuned_on=data.get("tuned_on", ""),
    )


def words(text: str) -> list[str]:
    """A text's words for `supported`: lowercased, citations left out, a word cut by "…" dropped."""
    from cardchat.generation.claims import CITATION

    return [w.lower() for w in _WORD.findall(CITATION.sub(" ", text)) if not w.endswith("…")]


def supported(sentence: str, card_text: str) -> bool:
    """The lexical rule of citation precision (module docstring)."""
    said = words(sentence)
    held = set(words(card_text))
    return not said or sum(w in held for w in said) >= SUPPORT_SHARE * len(said)


class _Deck:
    """An answer set's cards, ready to rank, pack and embed."""

    def __init__(self, s: AnswerSet, embedder: Any, cache: VectorCache) -> None:
        from cardchat.embeddings.text import embeddable_text, text_hash
        from cardchat.schema.documents import Card

        self.ids = [c["id"] for c in s.cards]
        self.cards = {c["id"]: Card(c["title"], c["body"], "owner") for c in s.cards}
        self.texts = {c["id"]: embeddable_text(c["title"], c["body"]) for c in s.cards}
        self.hashes = {c["id"]: text_hash(c["title"], c["body"]) for c in s.cards}
        self.embedder, self.cache = embedder, cache

    def background(self, question: str, model: str, percentage: float) -> tuple[str, list[str]]:
        """The background createChat would pack for `question` (BM25-ranked), and its card ids."""
        from cardchat.chat.create import background_budget
        from cardchat.llm.models import MODELS
        from cardchat.retrieval.background import fit_background
        from cardchat.retrieval.rank import RankingConfig, rank_cards

        spec = MODELS[model]
        texts = [self.texts[c] for c in self.ids]
        hashes = [self.hashes[c] for c in self.ids]
        order = rank_cards(question, None, self.ids, texts, None, None, RankingConfig(mode="sparse"), hashes)
        budget = background_budget(spec, percentage, question)
        bg = fit_background([(self.ids[i], self.cards[self.ids[i]]) for i in order], budget, spec.tokenizer)
        return bg.text, bg.card_ids

    def vectors(self, question: str, card_ids: Sequence[str]) -> tuple[Any, dict[str, Any]]:
        """The question's vector and those of `card_ids`, as the generation run compares them."""
        q = embed_queries(self.embedder, [question])[0]
        if not card_ids:
            return q, {}
        vecs = self.cache.embed(self.embedder, [self.texts[c] for c in card_ids], [self.hashes[c] for c in card_ids])
        return q, dict(zip(card_ids, vecs))


def judge(deck: _Deck, s: AnswerSet, question: str, on_topic: bool) -> Judged:
    from cardchat.generation import claims, coverage
    from cardchat.providers import offline

    text, card_ids = deck.background(question, s.model, s.background_percentage)
    answer = offline.compose(question, offline.sentences_of(text))
    names = claims.citable(card_ids)
    citations = supported_count = 0
    for block in claims.blocks(answer):
        for sent in claims.sentences(block, names):
            said = block[sent.start : sent.end]
            for m in claims.CITATION.finditer(said):
                for n in (n for n in claims.citation_numbers(m.group(0)) if n in names):
                    card = deck.cards[card_ids[n - 1]]
                    citations += 1
                    supported_count += supported(said, f"{card.title}\n{card.body}")
    q, vectors = deck.vectors(question, coverage.cited_cards(answer, card_ids))
    e = coverage.evidence(answer, card_ids, q, vectors)
    return Judged(
        question, on_topic, coverage.decide(e), citations, supported_count, e.claims, e.claims - e.cited, e.match
    )


def evaluate(s: AnswerSet, embedder: Any, cache: VectorCache) -> AnswerFigures:
    deck = _Deck(s, embedder, cache)
    return AnswerFigures([judge(deck, s, q, on) for q, on in s.questions])


def held_out(s: AnswerSet, figures: AnswerFigures) -> AnswerFigures | None:
    """The answers to the questions the thresholds were not chosen on (`tuned_on: "even"`: the odd ones)."""
    return AnswerFigures(figures.answers[1::2]) if s.tuned_on == "even" else None


def table(s: AnswerSet, f: AnswerFigures, label: str = "") -> str:
    on = sum(a.on_topic for a in f.answers)
    cited = sum(a.citations for a in f.answers)
    claims_ = sum(a.claims for a in f.answers)
    counts = Counter(a.coverage for a in f.answers)
    return "\n".join(
        [
            f"answers: {s.name}{label} ({len(f.answers)} questions: {on} on-topic, {len(f.answers) - on} off-topic; "
            f"{s.model}, background {s.background_percentage:.0%}, BM25-ranked)",
            f"  citation precision  {f.citation_precision:.3f}  ({cited} citations)",
            f"  uncited-claim rate  {f.uncited_rate:.3f}  ({sum(a.uncited for a in f.answers)} of {claims_} claims)",
            f"  coverage accuracy   {f.accuracy():.3f}  (on-topic answered {f.accuracy(True):.3f}, "
            f"off-topic declined {f.accuracy(False):.3f})",
            "  coverage            " + "  ".join(f"{v} {counts.get(v, 0)}" for v in ("covered", "partial", "none")),
        ]
    )


def report(path: Path, embedder: Any, cache: VectorCache) -> str:
    """One answer set's table, and its held-out half's when it has one, then a blank line."""
    s = load_answer_set(path)
    figures = evaluate(s, embedder, cache)
    rest = held_out(s, figures)
    held = "" if rest is None else table(s, rest, " (held out: the odd questions)") + "\n"
    return table(s, figures) + "\n" + held


def main(paths: Sequence[str], model: str | None = "minilm") -> int:
    return report_sets(paths, ANSWERS_DIR, model, report)
