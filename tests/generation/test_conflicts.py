"""The conflict rule (retrieval/conflicts.py): a passage on the claim's subject that says otherwise."""

from __future__ import annotations

import pytest

from cardchat.generation.citation_checks import passages
from cardchat.retrieval import conflicts

CARD = passages(
    "Releases\n\n"
    "Git rebase replays your commits on top of another branch. It rewrites history, so never rebase commits "
    "that others have pulled. Python 3.12 was released in October 2023. The default timeout is 30 seconds."
)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        ("Git rebase does not replay your commits on top of another branch.", "negation"),
        ("It rewrites history, so always rebase commits that others have pulled.", "negation"),
        ("Python 3.12 was released in October 2022.", "date"),
        ("Python 3.12 was released in November 2023.", "date"),
        ("The default timeout is 60 seconds.", "number"),
        ("Python 3.13 was released in October 2023.", "number"),
    ],
)
def test_a_passage_on_the_subject_that_says_otherwise_conflicts(claim: str, kind: str) -> None:
    found = conflicts.conflict(claim, CARD)
    assert found is not None
    assert found.kind == kind
    assert found.passage in CARD


@pytest.mark.parametrize(
    "claim",
    [
        "Git rebase replays your commits on top of another branch.",  # it says so
        "The default timeout is configurable.",  # on the subject, silent on what differs
        "The default timeout of the proxy is 60 seconds per request here.",  # too little of its subject
        "Sourdough needs 3 feeds a day and is not quick.",  # another subject
        "Python 3.12 was released in 2023.",  # the card is more precise, not otherwise
        "The default timeout is 30 seconds after 3 retries.",  # a number the card lacks: it does not say
    ],
)
def test_agreeing_silent_or_unrelated_passages_do_not_conflict(claim: str) -> None:
    assert conflicts.conflict(claim, CARD) is None


def test_a_year_sized_number_is_still_a_number() -> None:
    assert conflicts.kind_of_conflict("The buffer is 2048 bytes.", "The buffer is 4096 bytes.") == "number"


def test_may_and_march_are_months_only_beside_a_number() -> None:
    assert conflicts.dates("You may march on, released 3 March 2020 on a Monday") == {"march", "2020", "monday"}
    assert conflicts.dates("You may march on") == set()


def test_a_passage_less_precise_on_the_date_does_not_say_otherwise() -> None:
    claim = "Python 3.12 was released in October 2023."
    assert conflicts.kind_of_conflict(claim, "Python 3.12 was released in 2023.") is None
    assert conflicts.kind_of_conflict("Python 3.12 was released in 2023.", claim) is None


def test_a_contraction_is_a_negation() -> None:
    claim = "The offline model runs on Windows laptops."
    assert conflicts.kind_of_conflict(claim, "The offline model doesn't run on Windows laptops.") == "negation"
    assert conflicts.kind_of_conflict(claim, "The offline model doesn\u2019t run on Windows laptops.") == "negation"


def test_one_word_in_common_is_too_thin_a_subject() -> None:
    assert conflicts.kind_of_conflict("Timeout: 30.", "Timeout: 60.") is None
    assert conflicts.kind_of_conflict("Timeout: 30 seconds.", "Timeout: 60 seconds.") == "number"


def test_function_words_of_another_language_are_no_subject() -> None:
    claim = "Het is een van die dingen voor 3 dagen."
    assert conflicts.kind_of_conflict(claim, "Het is een van die katten voor 5 weken.") is None
    assert conflicts.kind_of_conflict(claim, "Het is een van die dingen voor 5 dagen.") == "number"
