"""The offline answerer's time to its first word, warm, on the demo deck.

    PYTHONPATH=functions:. functions/venv/bin/python -m benchmarks.bench_offline

For questions of the git-demo eval set, a background is packed as
createChat packs it for the offline model (cards ranked by BM25 here, so
the bench does not embed the deck), then the answer is composed twice:
embedding every sentence (what the answerer once did, the
quality reference) and with the BM25-preselected candidates (what it does
now). A follow-up asks the next question on the same background. Needs no
Firestore; the db argument is ignored.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.common import sized
from cardchat.admin.demo_deck import build_deck
from cardchat.admin.evaluation import load_set
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.providers import offline
from cardchat.retrieval import background
from cardchat.retrieval import rank as retrieval
from cardchat.schema.documents import Card

SET = Path(__file__).resolve().parents[1] / "eval" / "sets" / "git-demo.json"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _background(question: str, ids: list[str], cards: dict[str, Card], texts: list[str]) -> background.Background:
    from cardchat.chat.create import background_budget
    from cardchat.parsing.requests import DEFAULT_BACKGROUND_FRACTION

    spec = MODELS[OFFLINE_MODEL_ID]
    scores = retrieval.sparse_scores(question, ids, texts)
    order = sorted(range(len(ids)), key=lambda i: -scores[i])
    budget = background_budget(spec, DEFAULT_BACKGROUND_FRACTION, question)
    return background.fit_background([(ids[i], cards[ids[i]]) for i in order], budget, spec.tokenizer)


def _first(question: str, sentences: list[offline.Sentence]) -> tuple[float, list[offline.Sentence]]:
    """Milliseconds to the first sentence written, and all those written."""
    start = time.perf_counter()
    stream = offline.selected(question, sentences)
    out = [next(stream, None)]
    ms = (time.perf_counter() - start) * 1000
    return ms, [s for s in [*out, *stream] if s is not None]


def run(db: Any = None) -> list[str]:
    deck = build_deck()
    cards = {c["id"]: Card(title=c["title"], body=c["body"], owner=c["owner"]) for c in deck}
    ids = list(cards)
    texts = [f"{cards[i].title}\n{cards[i].body}" for i in ids]
    queries = load_set(SET).queries[: int(os.environ.get("BENCH_OFFLINE_QUERIES", sized("12", "1")))]
    offline._vectors(["warm the model"])
    rows: dict[str, list[float]] = {"all": [], "first": [], "follow": []}
    hits = {"all": 0, "first": 0}
    sizes = []
    for (q, relevant), (follow, _) in zip(queries, queries[1:] + queries[:1]):
        bg = _background(q, ids, cards, texts)
        sentences = offline.sentences_of(bg.text)
        sizes.append(len(sentences))
        offline._VECTORS.clear()
        start = time.perf_counter()
        ref = offline.select(q, sentences, among=list(range(len(sentences))))
        rows["all"].append((time.perf_counter() - start) * 1000)
        offline._VECTORS.clear()
        ms, new = _first(q, sentences)
        rows["first"].append(ms)
        rows["follow"].append(_first(follow, sentences)[0])
        for name, picked in (("all", ref), ("first", new)):
            hits[name] += any(bg.card_ids[s.card - 1] in relevant for s in picked)
    n = len(queries)
    lines = [
        f"{n} git-demo questions, {statistics.median(sizes):.0f} sentences per background (median); "
        "ms to the first quoted sentence, warm model"
    ]
    for name, label in (
        ("all", "embed every sentence (before)"),
        ("first", "preselected, first question"),
        ("follow", "preselected, follow-up"),
    ):
        lines.append(f"{label:32s} p50 {statistics.median(rows[name]):7.0f}   p95 {_percentile(rows[name], 0.95):7.0f}")
    lines.append(f"answers quoting a relevant card: every sentence {hits['all']}/{n}, preselected {hits['first']}/{n}")
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
