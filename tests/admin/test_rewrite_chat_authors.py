"""`python -m cardchat rewrite-chat-authors`: an author chip stored with its
owner's email (as shareChat once wrote it for an owner without a display
name) names the owner's display name or no one; a second run changes nothing."""

from __future__ import annotations

import pytest
from conftest import PROJECT
from firebase_admin import auth

from cardchat.__main__ import main
from cardchat.schema.documents import CHAT_AUTHORS

pytestmark = pytest.mark.emulator


def test_author_chips_lose_the_owners_email(db, auth_accounts, capsys):
    nameless, named, addressed = auth_accounts(), auth_accounts(), auth_accounts()
    auth.update_user(named, display_name="Alice Owner")
    nameless_email, named_email = auth.get_user(nameless).email, auth.get_user(named).email
    auth.update_user(addressed, display_name=f"Eve <{auth.get_user(addressed).email}>")  # a name that is an address
    chips = db.collection(CHAT_AUTHORS)
    chips.document("a").set({"owner": nameless, "name": nameless_email, "shown": True})
    chips.document("b").set({"owner": named, "name": named_email, "shown": False})
    chips.document("c").set({"owner": named, "name": "Alice Owner", "shown": True})
    chips.document("d").set({"owner": "deleted-account", "name": "gone@cardchat.test", "shown": True})
    chips.document("e").set({"owner": addressed, "name": auth.get_user(addressed).display_name, "shown": True})

    assert main(["--project", PROJECT, "rewrite-chat-authors"]) == 0
    assert "rewrote 4 of 5 author chips" in capsys.readouterr().out
    assert {d.id: d.to_dict() for d in chips.stream()} == {
        "a": {"owner": nameless, "name": "", "shown": True},
        "b": {"owner": named, "name": "Alice Owner", "shown": False},
        "c": {"owner": named, "name": "Alice Owner", "shown": True},
        "d": {"owner": "deleted-account", "name": "", "shown": True},
        "e": {"owner": addressed, "name": "", "shown": True},
    }

    assert main(["--project", PROJECT, "rewrite-chat-authors"]) == 0
    assert "rewrote 0 of 5 author chips" in capsys.readouterr().out
