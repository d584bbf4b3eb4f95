"""The shipped evaluation sets are well formed and every label exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardchat.admin.demo_deck import build_deck
from cardchat.admin.evaluation import SETS_DIR, Metrics, load_set, score

SETS = sorted(SETS_DIR.glob("*.json"))


def test_sets_are_shipped():
    names = {p.name for p in SETS}
    assert {"git-demo.json", "compounds-nl-de.json"} <= names


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_every_relevant_id_exists(path: Path):
    data = json.loads(path.read_text())
    cards = build_deck() if data.get("deck") == "demo" else data["cards"]
    ids = {c["id"] for c in cards}
    assert len(ids) == len(cards)
    assert data["queries"]
    for q in data["queries"]:
        assert q["query"].strip() and q["relevant"], q
        missing = [r for r in q["relevant"] if r not in ids]
        assert not missing, f"{path.name}: {q['query']!r} labels unknown ids {missing}"
    load_set(path)  # the loader's own check agrees


def test_git_demo_size_and_kinds():
    data = json.loads((SETS_DIR / "git-demo.json").read_text())
    kinds = [q.get("kind") for q in data["queries"]]
    assert len(kinds) >= 100
    assert kinds.count("paraphrase") >= 40 and kinds.count("exact") >= 30


def test_compound_set_uses_compounds():
    data = json.loads((SETS_DIR / "compounds-nl-de.json").read_text())
    assert 20 <= len(data["cards"]) <= 30 and 15 <= len(data["queries"]) <= 25


def test_score_metrics():
    class S:  # the two fields score() reads
        card_ids = ["a", "b", "c", "d"]
        queries = [("q1", ["c"]), ("q2", ["a", "d"])]

    m = score([[0, 1, 2, 3], [3, 1, 2, 0]], S)  # q1: hit at 3; q2: d at 1, a at 4
    assert m == Metrics(recall5=1.0, recall10=1.0, mrr=pytest.approx((1 / 3 + 1) / 2))
    m = score([[0, 1, 3, 2], [1, 2, 0, 3]], S)
    assert m.mrr == pytest.approx((1 / 4 + 1 / 3) / 2)
