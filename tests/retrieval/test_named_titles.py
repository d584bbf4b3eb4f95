"""When a question names a card's title verbatim (retrieval/named_titles.names)."""

from __future__ import annotations

from cardchat.retrieval.named_titles import names


def test_a_title_is_named_as_a_whole_phrase_whatever_its_case_and_spacing():
    assert names("What does Project  Zebra say about deploys?", "project zebra")
    assert names("project zebra", "Project Zebra")
    assert names("see (Git rebase)", "git  rebase")
    assert names("Was sagt Übersicht?", "übersicht")


def test_part_of_a_word_or_of_the_title_is_not_named():
    assert not names("how many digits?", "Git")
    assert not names("project zebras", "Project Zebra")
    assert not names("what about the zebra?", "Project Zebra")


def test_titles_too_short_to_mean_anything_are_never_named():
    assert not names("a b c", "a")
    assert not names("go to it", "go")
    assert not names("anything", "")
    assert names("is Git fast?", "Git")


def test_the_index_key_of_a_title_is_among_the_keys_of_a_question_that_names_it():
    from cardchat.retrieval.named_titles import question_keys, title_key

    keys = question_keys("What does my  Project Zebra (draft) say about deploys?")
    assert title_key("project zebra") in keys
    assert title_key("(Project Zebra)") in keys  # a title's own edge punctuation aside
    assert title_key("zebra (draft)") in keys
    assert title_key("Project Zebras") not in keys
    assert title_key("go") == "" and title_key("  ") == ""
