"""The citation checks' labelled set (eval/citations/) and the gate on its held-out half: the figures
published in docs/citations.md, kept in eval/citations/floor.json, must hold."""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stdout

import pytest

from cardchat.admin import citation_evaluation as ce
from cardchat.admin import citation_pairs as cp
from cardchat.generation.citation_checks import passages


@pytest.fixture(scope="module")
def pairs() -> list[ce.Pair]:
    return ce.load_pairs()


def test_the_set_mixes_every_kind_from_both_sources_in_both_halves(pairs: list[ce.Pair]) -> None:
    assert len(pairs) >= 300
    assert len({p.id for p in pairs}) == len(pairs)
    assert {p.expected for p in pairs} <= set(ce.VERDICTS)
    count = Counter((p.half, p.source, p.kind) for p in pairs)
    for half in ce.HALVES:
        for source in cp.SOURCES:
            for kind in cp.KINDS:
                assert count[(half, source, kind)] >= 5, (half, source, kind)
    labels = {kind: {p.expected for p in pairs if p.kind == kind} for kind in cp.KINDS}
    assert labels["quoted"] == labels["paraphrased"] == labels["reworded"] == {"supported"}
    assert labels["number"] == labels["negation"] == labels["name"] == {"unsupported"}
    assert labels["neighbour"] == {"weak", "unsupported"}


def test_the_committed_set_is_what_its_builder_makes() -> None:
    """Seeded and deterministic: the file is the builder's output, so it can be built again."""
    out = io.StringIO()
    with redirect_stdout(out):
        cp.main()
    assert out.getvalue() == ce.PAIRS.read_text(encoding="utf-8")


def test_each_claim_is_its_cards_sentence_or_a_rewrite_of_one(pairs: list[ce.Pair]) -> None:
    rows = {r["id"]: r for r in map(json.loads, ce.PAIRS.read_text(encoding="utf-8").splitlines())}
    texts = ce.card_texts(pairs)
    for p in pairs:
        row = rows[p.id]
        if p.kind == "neighbour":
            assert row["from_card"] != p.card and p.claim not in texts[(p.source, p.card)]
            continue
        assert row["passage"] in passages(texts[(p.source, p.card)]), p.id
        assert (p.claim == row["passage"]) is (p.kind == "quoted"), p.id


def test_the_halves_are_fixed_by_the_pair_id_and_near_even(pairs: list[ce.Pair]) -> None:
    """Pinned: a change of the rule would move pairs between halves, and thresholds fitted on one
    half would then be read on pairs that chose them."""
    assert ce.Pair("git-demo:git-add:quoted", "git-demo", "git-add", "quoted", "a claim", "supported").half == "fit"
    assert ce.Pair("git-demo:git-add:name", "x", "y", "quoted", "a claim", "supported").half == "held-out"
    assert ce.Pair("git-demo:git-add:name", "z", "w", "name", "another", "weak").half == "held-out"
    held_out = sum(p.half == "held-out" for p in pairs)
    assert 0.4 <= held_out / len(pairs) <= 0.6


def test_figures_count_each_verdict_against_its_label() -> None:
    labels = ["supported", "supported", "weak", "unsupported", "unsupported"]
    verdicts = ["supported", "weak", "supported", "unsupported", "weak"]
    f = ce.figures(labels, verdicts)
    assert f.precision == {"supported": 0.5, "unsupported": 1.0}
    assert f.recall == {"supported": 0.5, "unsupported": 0.5, "marked": pytest.approx(2 / 3)}
    assert ce.figures(["weak"], ["weak"]).precision == {"supported": None, "unsupported": None}


def test_the_gate_names_each_figure_below_its_floor() -> None:
    per_kind = {"all": ce.figures(["supported", "unsupported"], ["supported", "weak"])}
    assert ce.below_floor(per_kind, {"all": {"precision supported": 1.0, "recall marked": 1.0}}) == []
    assert ce.below_floor(per_kind, {"all": {"recall supported": 1.0, "recall unsupported": 0.5}}) == [
        "all: recall unsupported 0.000 < published 0.500"
    ]
    assert ce.below_floor(per_kind, {"all": {"precision unsupported": 0.1}}) == [
        "all: precision unsupported   n/a < published 0.100"
    ]


def test_the_held_out_half_holds_the_published_figures(pairs: list[ce.Pair]) -> None:
    """The gate: every kind is held, and no published figure is below its floor (a threshold fitted
    on the fit half that does worse on the held-out one fails here)."""
    held_out = [p for p in pairs if p.half == "held-out"]
    per_kind = ce.by_kind(held_out, ce.judge(held_out), "held-out")
    floor = ce.floor()
    assert set(floor) == set(per_kind) and all(floor.values())
    assert ce.below_floor(per_kind, floor) == [], ce.table(per_kind, "held-out half")
