"""The shipped evaluation sets are well formed and every label exists."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cardchat.admin.demo_deck import build_deck
from cardchat.admin.evaluation import SETS_DIR, Metrics, load_set, score

SETS = sorted(SETS_DIR.glob("*.json"))


def test_sets_are_shipped():
    names = {p.name for p in SETS}
    assert {"git-demo.json", "compounds-nl-de.json", "python-faq.json"} <= names


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


def test_python_faq_set_is_shipped_with_its_source():
    data = json.loads((SETS_DIR / "python-faq.json").read_text())
    assert "python3.11-doc" in data["description"] and "License" in data["description"]
    assert len(data["cards"]) >= 200 and len(data["queries"]) >= 30
    assert all(len(c["body"]) <= 4000 for c in data["cards"])


def test_python_faq_labels_come_from_the_answers_cross_references(tmp_path: Path):
    from cardchat.admin import python_faq_set as pf

    (tmp_path / "library").mkdir()
    (tmp_path / "faq").mkdir()
    (tmp_path / "library" / "shutil.rst.txt").write_text(
        ":mod:`shutil` --- High-level file operations\n====\n\n.. module:: shutil\n\nCopy files with :func:`copy`.\n"
    )
    (tmp_path / "library" / "os.path.rst.txt").write_text(":mod:`os.path` --- paths\n===\n\n.. module:: os.path\n\nx\n")
    (tmp_path / "library" / "intro.rst.txt").write_text("Introduction\n=====\n\nNo module here.\n")
    faq = (
        "Library FAQ\n===========\n\nHow do I copy a file?\n---------------------\n\n"
        "Use :func:`shutil.copyfile` or :func:`os.path.join` and :mod:`nosuchmodule`.\n\n"
        "Why is the sky blue?\n--------------------\n\nNo module answers this.\n"
    )
    for name in pf.FAQ_PAGES:
        (tmp_path / "faq" / f"{name}.rst.txt").write_text(faq if name == "library" else "")
    built = pf.build(tmp_path)
    assert [c["id"] for c in built["cards"]] == ["py-os.path", "py-shutil"]  # pages without a module: no card
    shutil_card = built["cards"][1]
    assert shutil_card["title"] == "shutil — High-level file operations"
    assert "Copy files with copy." in shutil_card["body"] and ".. module" not in shutil_card["body"]
    assert built["queries"] == [
        {"query": "How do I copy a file?", "relevant": ["py-shutil", "py-os.path"], "kind": "faq-library"}
    ]


def test_held_out_half_is_the_odd_queries():
    from cardchat.admin.evaluation import EvalSet, held_out

    evs = EvalSet("s", "en", ["a"], ["t"], ["h"], [(f"q{i}", ["a"]) for i in range(5)], [""] * 5, tuned_on="even")
    rest = held_out(evs)
    assert rest is not None and [q for q, _ in rest.queries] == ["q1", "q3"] and rest.tuned_on == ""
    assert held_out(EvalSet("s", "en", ["a"], ["t"], ["h"], [("q", ["a"])], [""])) is None


def test_margin_is_hybrid_over_the_better_single_ranker():
    from cardchat.admin.evaluation import margin

    results = {
        "dense": Metrics(0.5, 0.7, 0.4),
        "sparse": Metrics(0.6, 0.6, 0.5),
        "hybrid": Metrics(0.65, 0.69, 0.5),
    }
    assert margin(results) == "  hybrid − best single ranker: recall@5 +0.050, recall@10 -0.010, MRR +0.000"


@pytest.mark.parametrize("name", ["manpages-ja", "manpages-fr"])
def test_the_multilingual_sets_are_real_manuals_with_enough_questions(name: str):
    data = json.loads((SETS_DIR / f"{name}.json").read_text())
    assert "manpages-" in data["description"] and len(data["cards"]) >= 200 and len(data["queries"]) >= 30
    if name == "manpages-fr":  # half the questions typed without accents, as people do
        plain = [q for q in data["queries"] if q["query"].isascii()]
        assert len(plain) * 3 >= len(data["queries"])


@pytest.mark.parametrize(("name", "floor"), [("manpages-ja", 0.8), ("manpages-fr", 0.85)])
def test_keyword_search_reads_japanese_and_accents(name: str, floor: float):
    """BM25 alone on the multilingual sets: without character bigrams Japanese recall@5 is about
    0.3 (a clause is one term no question repeats), without accent folding French about 0.82."""
    from cardchat.admin.evaluation import run_set
    from cardchat.retrieval.rank import RankingConfig

    evs = load_set(SETS_DIR / f"{name}.json")
    no_vectors = np.zeros((len(evs.card_ids), 1), np.float32)
    metrics = run_set(evs, no_vectors, np.zeros((len(evs.queries), 1), np.float32), RankingConfig(mode="sparse"))
    assert metrics.recall5 >= floor
