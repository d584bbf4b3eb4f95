"""One Markdown note read as a card's fields, the same for the CLI importer and syncCards:
front matter, the heading title, #hashtags outside code, [[wikilinks]] to known files."""

from __future__ import annotations

from cardchat.parsing.markdown_notes import hashtags, link_wikilinks, read_note


def test_front_matter_and_hashtags_give_the_tags_each_once():
    note = read_note("---\ntitle: Rebase\ntags: [git, main]\nvisibility: public\n---\nOnto #main, then #push.\n")
    assert (note.title, note.tags, note.meta["visibility"]) == ("Rebase", ["git", "main", "push"], "public")
    assert note.body == "Onto #main, then #push."


def test_a_heading_is_the_title_and_no_hashtag():
    note = read_note("\ufeff# Merge\r\nJoin branches.\r\n## Fast-forward\n")
    assert (note.title, note.body, note.tags) == ("Merge", "Join branches.\n## Fast-forward", [])


def test_no_hashtag_in_code_urls_entities_or_mid_word():
    body = "`#inline` and\n```\n#fenced\n```\nsee http://x.io/#frag, &#39; a#b C# #1 #real-tag/sub"
    assert hashtags(body) == ["real-tag/sub"]


def test_an_empty_or_single_tags_value():
    assert read_note("---\ntags:\n---\nText #x").tags == ["x"]
    assert read_note("---\ntags: solo\n---\nText").tags == ["solo"]


def test_wikilinks_to_known_files_become_card_links():
    cards = {"merge": "u_sync-1", "notes/git/rebase": "u_sync-2"}.get
    body = "[[merge]], [[merge|merging]], [[notes/git/rebase#Onto]] and [[unknown]]"
    assert link_wikilinks(body, cards) == (
        "[merge](/card/u_sync-1), [merging](/card/u_sync-1), [notes/git/rebase#Onto](/card/u_sync-2) and [[unknown]]"
    )
