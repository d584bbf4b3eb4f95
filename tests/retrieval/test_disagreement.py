"""The pair-level judgement of findOverlaps (retrieval/disagreement.py): the same text, nearly the
same text, a number, date or version that differs on one subject, a negation; and unrelated text."""

from __future__ import annotations

import pytest

from cardchat.retrieval.disagreement import DUPLICATE_SIMILARITY, compare


def test_the_same_text_is_a_duplicate_whatever_its_spacing_and_case():
    assert compare("Tides  rise twice a day.", "tides rise twice a day.", 0.5) == ("duplicate", "same text")


def test_nearly_the_same_text_is_a_duplicate_only_when_the_vectors_agree_too():
    a = "The moon pulls the oceans into two high tides a day, with spring and neap tides."
    b = "The moon pulls the oceans into two high tides each day, with spring and neap tides."
    kind, reason = compare(a, b, DUPLICATE_SIMILARITY)
    assert kind == "duplicate" and reason.startswith("nearly the same text (")
    assert compare(a, b, DUPLICATE_SIMILARITY - 0.01) is None


@pytest.mark.parametrize(
    "a, b, reason",
    [
        (
            "Cardchat needs Python 3.11 for its functions.",
            "Cardchat needs Python 3.12 for its functions.",
            "3.11 vs 3.12",
        ),
        (
            "The launch of the mobile app is on 2026-05-01.",
            "Mobile app launch: planned for 2026-06-01.",
            "2026-05-01 vs 2026-06-01",
        ),
        (
            "A sourdough loaf bakes for 40 minutes at 230 degrees.",
            "Bake the sourdough loaf 45 minutes at 230 degrees.",
            "40 vs 45",
        ),
    ],
)
def test_a_number_date_or_version_that_differs_on_one_subject_may_conflict(a, b, reason):
    assert compare(a, b, 0.9) == ("may_conflict", reason)
    assert compare(b, a, 0.9) == ("may_conflict", " vs ".join(reversed(reason.split(" vs "))))


def test_a_negation_on_one_subject_may_conflict_and_says_what_is_denied():
    kind, reason = compare(
        "The offline model runs on Windows laptops.", "The offline model never runs on Windows laptops.", 0.9
    )
    assert (kind, reason) == ("may_conflict", "says not runs on windows laptops…")


def test_different_subjects_are_no_pair_even_with_different_numbers():
    assert compare("Tides rise 2 times a day.", "Sourdough needs 3 feeds of flour.", 0.7) is None
    assert compare("Python 3.11 runs the functions.\nThe moon pulls tides.", "Bread bakes at 230 degrees.", 0.7) is None


def test_another_month_or_weekday_may_conflict():
    a = "Python 3.12 was released in October 2023."
    assert compare(a, "Python 3.12 was released in November 2023.", 0.9) == ("may_conflict", "october vs november")
    assert compare("The team meets on Monday at 10.", "The team meets on Tuesday at 10.", 0.9) == (
        "may_conflict",
        "monday vs tuesday",
    )
