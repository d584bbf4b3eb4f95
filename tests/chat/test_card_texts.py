"""The text a warm instance keeps (chat/card_texts.py) serves a card only as its index entry knows it."""

from __future__ import annotations

from datetime import timedelta

from cardchat.chat import card_texts
from cardchat.embeddings.text import text_hash
from cardchat.schema.documents import Card, updated_stamp


def test_a_card_edited_only_in_its_markdown_is_not_served_its_old_text():
    card_texts.clear()
    old = Card("Tides", "See [the table](https://example.org/v1).", "u1")
    new = Card("Tides", "See [the table](https://example.org/v2).", "u1", updated=old.updated + timedelta(seconds=5))
    assert text_hash(old.title, old.body) == text_hash(new.title, new.body)  # the link's target is not embedded
    card_texts.remember([("c1", old)])
    h = text_hash(new.title, new.body)
    assert card_texts.known("c1", h, updated_stamp(old)) == (old.title, old.body)
    assert card_texts.known("c1", h, updated_stamp(new)) is None  # the index's newer stamp: read it again
