"""The rewrites that make the citation set's claims (admin/claim_rewrites.py): each changes what it
says it changes, and nothing it must not touch."""

from __future__ import annotations

import random

import pytest

from cardchat.admin import claim_rewrites as rw


def test_a_paraphrase_moves_the_condition_and_rewords_but_keeps_names() -> None:
    said = "If the file is missing, the command displays an error and removes the lock."
    assert rw.paraphrase(said) == "The command shows an error and deletes the lock if the file is missing."
    out = rw.paraphrase("Use os.remove to delete it in order to free the directory, e.g. when it contains nothing.")
    assert out == "Use os.remove to delete it to free the folder, for example when it holds nothing."
    # a sentence opening on a command keeps its condition first: "Git show" would name nothing
    said = "If the file is missing, git show reports it, removes the lock, creates a log and displays it."
    assert (
        rw.paraphrase(said)
        == "If the file is missing, git show reports it, deletes the lock, makes a log and shows it."
    )
    said = "Running git bundle create removes nothing, creates a file and displays it."
    assert rw.paraphrase(said) == "Running git bundle create deletes nothing, makes a file and shows it."


def test_a_near_copy_is_no_paraphrase() -> None:
    assert rw.paraphrase("This option creates the branch.") is None  # one word changed


@pytest.mark.parametrize(
    ("said", "altered"),
    [
        ("The hook runs 3 times for each push.", "The hook runs 4 times for each push."),
        ("It reads UTF-8 text and keeps two copies.", "It reads UTF-8 text and keeps three copies."),
        ("Python 3.11 added it to SHA-1 checks.", None),  # a version and names, no standalone number
    ],
)
def test_one_number_is_changed_and_never_one_inside_a_name(said: str, altered: str | None) -> None:
    assert rw.alter_number(said, random.Random(0)) == altered


@pytest.mark.parametrize(
    ("said", "altered"),
    [
        ("The index is not updated by this command.", "The index is updated by this command."),
        ("You cannot push to it.", "You can push to it."),
        ("The index is updated by this command.", "The index is not updated by this command."),
        ("It is not safe and never fast.", None),  # two negations: taking one away says something else
    ],
)
def test_one_negation_is_added_or_taken_away(said: str, altered: str | None) -> None:
    assert rw.alter_negation(said, random.Random(0)) == altered


def test_a_name_is_swapped_for_another_and_a_git_command_for_another_command() -> None:
    rng = random.Random(0)
    assert rw.alter_name("Use git rebase to replay them.", rng, []) == "Use git merge to replay them."
    # each command's swap is already there: swapping would say less, not something else
    assert rw.alter_name("Both git rebase and git merge move commits.", rng, []) is None
    assert rw.alter_name("Then Alice pulls from Bob.", rng, ["Alice", "Bob", "Carol"]) in {
        "Then Carol pulls from Bob.",
        "Then Alice pulls from Carol.",
    }
    assert rw.alter_name("When nothing is named, say so.", rng, ["Alice"]) is None
