"""The coverage rule (generation/coverage.py): from an answer's evidence to covered, partial or none."""

from __future__ import annotations

import numpy as np
import pytest

from cardchat.generation import coverage
from cardchat.generation.coverage import Evidence, decide, evidence
from cardchat.providers import declining

IDS = ["tides", "oven", "", "sail"]


@pytest.mark.parametrize(
    ("e", "expected"),
    [
        (Evidence(declined=True, claims=0, cited=0, match=None), "none"),
        (Evidence(declined=True, claims=3, cited=3, match=0.9), "none"),  # says so, whatever else it cites
        (Evidence(declined=False, claims=4, cited=0, match=None), "none"),  # rests on no card
        (Evidence(declined=False, claims=0, cited=0, match=None), "none"),
        (Evidence(declined=False, claims=4, cited=4, match=0.6), "covered"),
        (Evidence(declined=False, claims=4, cited=3, match=coverage.STRONG_MATCH), "covered"),
        (Evidence(declined=False, claims=4, cited=4, match=None), "covered"),  # no vector to tell
        (Evidence(declined=False, claims=4, cited=2, match=0.9), "partial"),  # half its claims uncited
        (Evidence(declined=False, claims=4, cited=4, match=coverage.STRONG_MATCH - 0.01), "partial"),  # loose match
    ],
)
def test_the_rule(e, expected):
    assert decide(e) == expected


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_evidence_counts_claims_citing_a_card_and_the_best_cited_cards_match():
    answer = "Tides follow the moon [1]. Bread wants a hot oven [2]. The sea is always cold in winter. Gates shut [3]."
    q = unit(1, 0)
    vectors = {"tides": unit(1, 1), "oven": unit(0, 1), "sail": unit(1, 0)}
    e = evidence(answer, IDS, q, vectors)
    # [3] is a withdrawn card: no citation; "Gates shut" has too few words to be a claim
    assert (e.declined, e.claims, e.cited) == (False, 3, 2)
    assert e.match == pytest.approx(0.7071, abs=1e-4)  # tides, the better of the two cited; sail is not cited
    assert evidence(answer, IDS, None, vectors).match is None
    assert evidence(answer, IDS, q, {}).match is None


def test_a_declining_answer_opens_with_the_shared_sentence():
    assert coverage.declines(f"{declining.DECLINED} The nearest cards are [1] and [4].")
    assert coverage.declines(f"{declining.DECLINED} Tungsten melts at 3422 degrees, from general knowledge.")
    assert not coverage.declines(f"Tides follow the moon [1].\n\n{declining.DECLINED}")
    e = evidence(f"{declining.DECLINED} The nearest cards are [1] and [4].", IDS, unit(1, 0), {})
    assert e == Evidence(declined=True, claims=0, cited=0, match=None)
    assert coverage.cited_cards(f"{declining.DECLINED} The nearest cards are [1] and [4].", IDS) == ["tides", "sail"]


def test_ask_anyway_is_not_part_of_the_question():
    assert declining.question_of(f"{declining.ANYWAY} Why are there tides?") == "Why are there tides?"
    assert declining.question_of("  Why are there tides? ") == "Why are there tides?"


def test_keyed_models_are_told_the_same_sentence():
    assert f'"{declining.DECLINED}"' in declining.INSTRUCTION
    assert set(declining.VALUES) == {"covered", "partial", "none"}
