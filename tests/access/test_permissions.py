"""Who may do what (cardchat/access/permissions.py): the permission rules themselves, without a store.
The refusals they cause on the emulator are in tests/chat/test_refusals.py."""

from __future__ import annotations

import pytest

from cardchat.access import permissions
from cardchat.errors import NotFound, PermissionDenied
from cardchat.llm.models import OFFLINE_MODEL_ID
from cardchat.schema.documents import Card, UserDoc


def test_only_an_account_granted_ai_may_use_it():
    for doc in (None, {}, {"may_use_ai": False}, {"may_use_ai": "yes"}, {"admin": True}):
        with pytest.raises(PermissionDenied, match="may not use the AI"):
            permissions.AIAccess(UserDoc.from_dict(doc).may_use_ai).admit(OFFLINE_MODEL_ID)
    permissions.AIAccess(UserDoc.from_dict({"may_use_ai": True}).may_use_ai).admit(OFFLINE_MODEL_ID)


def test_the_owner_is_the_uid_named_in_the_document():
    assert permissions.is_owner({"owner": "u1"}, "u1")
    assert not permissions.is_owner({"owner": "u1"}, "u2")
    assert not permissions.is_owner(None, "u1")
    # An owner-less document belongs to nobody, not to a caller without a uid.
    assert not permissions.is_owner({}, "")
    assert not permissions.is_owner({"owner": ""}, "")
    assert not permissions.is_owner({"owner": None}, None)


def test_require_owner_returns_the_chat_or_refuses():
    chat = {"owner": "u1", "title": "t"}
    assert permissions.require_owner(chat, "u1") is chat
    with pytest.raises(PermissionDenied):
        permissions.require_owner(chat, "u2")
    with pytest.raises(NotFound):
        permissions.require_owner(None, "u1")


def test_readable_cards_keep_the_order_asked_and_drop_the_rest_silently():
    cards = {
        "pub": Card(title="p", body="", owner="u2", visibility="public"),
        "shared": Card(title="s", body="", owner="u2", viewers=["u1"]),
        "mine": Card(title="m", body="", owner="u1"),
        "theirs": Card(title="t", body="", owner="u2"),
    }
    assert list(permissions.readable_cards(cards, "u1", ["mine", "gone", "theirs", "pub", "shared"])) == [
        "mine",
        "pub",
        "shared",
    ]
    assert list(permissions.readable_cards(cards, "u1")) == ["pub", "shared", "mine"]
    assert list(permissions.readable_cards(cards, None)) == ["pub"]
