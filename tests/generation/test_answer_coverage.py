"""An answer's `coverage`, stored with its final status on the real emulator:
the offline answerer declines an off-topic question (naming the nearest cards
by number only), and a keyed model is told to decline the same way and judged
by the same rule (coverage.py)."""

from __future__ import annotations

import pytest

from cardchat.generation.engine import generate
from cardchat.providers import declining
from engine_support import CLAUDE, TIDES, anthropic_wire, ask_tides_and_bread, message, quick
from provider_wire import anthropic_text

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "quick"]  # fixtures, used by name


def test_the_offline_answer_to_a_question_the_cards_cover_is_covered(db):
    stub = ask_tides_and_bread(db, "on-topic", TIDES)
    assert generate(db, stub) == "complete"
    msg = message(db, stub)
    assert msg["content"].startswith("- ") and msg["sources"]
    assert (msg["status"], msg["coverage"]) == ("complete", "covered")


def test_the_offline_answerer_declines_a_question_no_card_covers(db):
    stub = ask_tides_and_bread(db, "off-topic", "What is the melting point of tungsten?")
    assert generate(db, stub) == "complete"
    msg = message(db, stub)
    assert msg["content"].startswith(f"{declining.DECLINED} The nearest cards are [")
    assert msg["coverage"] == "none"
    # the nearest cards by number: their titles reach a reader only through the citation layer
    assert "Tide note" not in msg["content"] and "Baking" not in msg["content"]


def test_ask_anyway_quotes_what_is_nearest_and_says_it_is_partial(db):
    stub = ask_tides_and_bread(db, "anyway", f"{declining.ANYWAY} What does a baker do with steam?")
    assert generate(db, stub) == "complete"
    msg = message(db, stub)
    assert msg["content"].startswith("- ") and msg["coverage"] in ("covered", "partial")


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("The moon pulls the sea, so tides rise and fall twice a day [1]. Tide tables give the times [2].", "covered"),
        (
            "Tides rise and fall twice a day [1]. The sea is salty because rivers carry minerals. "
            "Harbours close at night in winter. Tide tables give the times [2].",
            "partial",
        ),
        ("Tides come from the moon, as everyone knows from school.", "none"),
        (f"{declining.DECLINED} The nearest card is [4]. From general knowledge: the moon.", "none"),
    ],
)
def test_a_keyed_model_is_told_to_decline_and_judged_by_the_same_rule(db, anthropic_wire, said, expected):
    anthropic_wire.responses = [anthropic_text(said)]
    stub = ask_tides_and_bread(db, f"keyed-{expected}", TIDES, CLAUDE)
    assert generate(db, stub) == "complete"
    assert message(db, stub)["coverage"] == expected
    system = anthropic_wire.body()["system"][0]["text"]
    assert system.startswith(declining.INSTRUCTION) and "Tide note 0" in system


def test_a_failed_answer_has_no_coverage(db, anthropic_wire):
    stub = ask_tides_and_bread(db, "failed", TIDES, CLAUDE)  # no canned response: the provider call fails
    assert generate(db, stub, sleep=lambda _s: None) == "failed"
    assert message(db, stub).get("coverage") is None
