"""`python -m cardchat migrate-chat-viewers`: chats that still hold a `viewers`
list (readable by every visitor of a published chat) get one chat_viewers doc
per viewer instead, and lose the field; a second run changes nothing."""

from __future__ import annotations

import pytest
from conftest import PROJECT
from google.cloud.firestore import FieldFilter

from cardchat.__main__ import main
from cardchat.ids import chat_viewer_id
from cardchat.repo import sharing
from cardchat.schema.documents import CHAT_VIEWERS, CHATS, ChatViewer
from chat_support import make_chat

pytestmark = pytest.mark.emulator

CONVERSATION = [("user", "complete", "Why are there tides?"), ("assistant", "complete", "The moon [1].")]


def _docs(db) -> dict[str, dict]:
    return {d.id: d.to_dict() for d in db.collection(CHAT_VIEWERS).stream()}


def test_the_viewers_list_moves_into_viewer_docs_once(db, capsys):
    make_chat(db, CONVERSATION)  # "src", owned by u1
    chats = db.collection(CHATS)
    chats.document("src").update({"published": True, "viewers": ["u2", "u3", "u2", "u1"]})
    chats.document("other").set({**chats.document("src").get().to_dict(), "viewers": []})
    chats.document("plain").set({k: v for k, v in chats.document("src").get().to_dict().items() if k != "viewers"})
    # one already written by shareChat: kept, with its own date
    early = ChatViewer("src", "u1", "u3")
    db.collection(CHAT_VIEWERS).document(chat_viewer_id("src", "u3")).set(early.to_dict())

    assert main(["--project", PROJECT, "migrate-chat-viewers"]) == 0
    assert "moved the viewers of 2 chats into 1 chat_viewers docs" in capsys.readouterr().out
    for chat_id in ("src", "other", "plain"):
        assert "viewers" not in chats.document(chat_id).get().to_dict(), chat_id
    docs = _docs(db)
    assert set(docs) == {chat_viewer_id("src", "u2"), chat_viewer_id("src", "u3")}  # the owner is no viewer
    moved = docs[chat_viewer_id("src", "u2")]
    assert {k: moved[k] for k in ("chat", "owner", "viewer")} == {"chat": "src", "owner": "u1", "viewer": "u2"}
    assert docs[chat_viewer_id("src", "u3")]["added"] == early.added
    assert sharing.is_viewer(db, "src", "u2") and not sharing.is_viewer(db, "other", "u2")
    listed = db.collection(CHAT_VIEWERS).where(filter=FieldFilter("chat", "==", "src")).stream()
    assert sorted(d.get("viewer") for d in listed) == ["u2", "u3"]

    assert main(["--project", PROJECT, "migrate-chat-viewers"]) == 0  # again: nothing left to move
    assert "moved the viewers of 0 chats into 0 chat_viewers docs" in capsys.readouterr().out
    assert _docs(db) == docs
