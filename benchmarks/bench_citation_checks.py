"""Checking an answer's citations as its run finishes (generation/citation_checks.py): the time
added before the final write for a 2,000-token answer with 20 citations over twelve cards of forty
sentences, each run with a fresh vector cache (no passage seen before: an instance's first answer
on the chat) and again with the cache the first left (a later answer over the same cards). The goal
is at most 300 ms at p95 on two cores. Needs no Firestore; the db argument is ignored.

    PYTHONPATH=functions:. functions/venv/bin/python -m benchmarks.bench_citation_checks
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from benchmarks.common import sized
from cardchat.embeddings import get_embedder
from cardchat.generation import citation_checks as cc
from cardchat.retrieval.background import fit_background, parse_background
from cardchat.schema.documents import Card

GOAL_MS = 300.0
PLACES = "harbour valley ridge market station quarry mill bridge orchard lighthouse".split()
THINGS = "boats carts lanterns barrels sheep crates bells ropes nets kilns".split()
VERBS = "repairs counts loads paints inspects stores weighs ships cleans guards".split()


def _sentence(rng: random.Random) -> str:
    return (
        f"The {rng.choice(PLACES)} crew {rng.choice(VERBS)} {rng.randint(2, 90)} {rng.choice(THINGS)} "
        f"every {rng.choice(['morning', 'week', 'season', 'spring'])} before the {rng.choice(PLACES)} opens."
    )


def deck(rng: random.Random, cards: int, sentences: int) -> list[tuple[str, Card]]:
    return [
        (
            f"c{i}",
            Card(f"Card {i} on the {PLACES[i % len(PLACES)]}", " ".join(_sentence(rng) for _ in range(sentences)), "u"),
        )
        for i in range(cards)
    ]


def answer(rng: random.Random, cards: dict[int, str], citations: int, claims: int) -> str:
    """`claims` sentences (about 25 tokens each), `citations` of them cited: a third quoted from the
    card, a third reworded (words alone cannot tell: the vectors are asked), a third off the card's
    topic (the vectors are asked whether it is on topic)."""
    cited = set(rng.sample(range(claims), citations))
    out = []
    for i in range(claims):
        if i not in cited:
            out.append(_sentence(rng))
            continue
        n = rng.choice(sorted(cards))
        said = rng.choice(cc.passages(cards[n])[1:])
        if i % 3 == 1:
            said = (
                said.replace(" crew ", " team of workers ", 1)
                .replace(" every ", " each ")
                .replace(" opens", " is open")
            )
        elif i % 3 == 2:
            said = f"Our bakers knead {rng.randint(2, 90)} loaves of rye with honey, salt and seeds on cold days"
        out.append(f"{said.rstrip('.')} [{n}].")
    return "\n\n".join(" ".join(out[j : j + 5]) for j in range(0, len(out), 5))


def run(_db: Any = None) -> list[str]:
    rng = random.Random(7)
    bg = fit_background(deck(rng, sized(12, 3), sized(40, 6)), 100_000, "o200k_base")
    texts = {n: f"{t}\n\n{b}" for n, t, b in parse_background(bg.text)}
    content = answer(rng, texts, sized(20, 3), sized(80, 6))
    citable = frozenset(range(1, len(bg.card_ids) + 1))
    model = get_embedder("minilm").embed
    model(["load the model once, as an instance has by its first answer"])
    embedded: list[int] = []

    def embed(texts: Any) -> np.ndarray:
        embedded.append(len(texts))
        return model(texts)

    cold: list[float] = []
    warm: list[float] = []
    verdicts: dict[str, int] = {}
    for _ in range(sized(20, 2)):
        cache = cc.VectorCache(embed)
        for times in (cold, warm):
            start = time.perf_counter()
            cards = {n: f"{t}\n\n{b}" for n, t, b in parse_background(bg.text)}
            found = cc.check(content, cards, citable, cache)
            times.append((time.perf_counter() - start) * 1000)
        verdicts = {v: sum(c.verdict == v for c in found) for v in ("supported", "weak", "unsupported")}
    said = ", ".join(f"{k} {v}" for k, v in verdicts.items())
    lines = [f"{len(found)} checks over {len(texts)} cards ({said}); {max(embedded)} texts embedded for a fresh cache"]
    for label, times in (("fresh cache", cold), ("warm cache", warm)):
        p95 = float(np.percentile(times, 95))
        verdict = "within" if p95 <= GOAL_MS else "OVER"
        median = float(np.median(times))
        lines.append(
            f"{label}: median {median:.0f} ms, p95 {p95:.0f} ms of {len(times)} ({verdict} the {GOAL_MS:.0f} ms goal)"
        )
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
