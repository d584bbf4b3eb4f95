"""Searching one's chats (chat/chat_search.py over repo/chat_search.py's index) on the
Firestore emulator: titles and transcripts of the caller's own chats and of chats shared
with them, the passage of each hit and where it is; never another user's unshared chat,
never a hidden background, nothing left of a chat once it is deleted."""

from __future__ import annotations

import pytest

from cardchat.chat.chat_search import search_chats
from cardchat.chat.share import leave_chat
from cardchat.errors import InvalidArgument, NotFound, ResourceExhausted
from cardchat.ids import chat_viewer_id
from cardchat.parsing import requests as parsing
from cardchat.repo import chat_search as index
from cardchat.repo.chats import delete_chat, read_background
from cardchat.schema.chat_search import CHAT_SEARCH, CHAT_SEARCH_SHARDS, MAX_CHAT_SEARCH_CHARS
from cardchat.schema.documents import CHAT_VIEWERS, ChatViewer
from chat_support import make_chat

pytestmark = pytest.mark.emulator

TURNS = [
    ("user", "complete", "When do the spring tides come?"),
    ("assistant", "complete", "Spring tides come with the new and the full moon [3]."),
    ("user", "complete", "And what does the lighthouse keeper do at night?"),
    ("assistant", "complete", "The keeper trims the wick and winds the clockwork of the lens."),
    ("user", "complete", "Which lens?"),
    ("assistant", "failed", "A Fresnel lens, ground in Paris"),
]


def chat_of(db, chat_id: str, owner: str = "u1", turns=TURNS) -> str:
    make_chat(db, turns, chat_id=chat_id)
    if owner != "u1":
        db.collection("chats").document(chat_id).update({"owner": owner})
    index.index_answer(db, chat_id, 3)  # the turn of answer 3: a reader without the chat gets all of it so far
    return chat_id


def found(db, uid: str, text: str) -> list[tuple[str, int | None, str]]:
    return [(r.chat_id, r.message_index, r.role) for r in search_chats(db, uid, text).results]


def test_a_search_finds_titles_and_messages_with_the_passage_and_where_it_is(db):
    chat_of(db, "c1")
    answer = search_chats(db, "u1", "keeper clockwork").results
    best = answer[0]
    assert (best.chat_id, best.message_index, best.role) == ("c1", 3, "assistant")
    assert "winds the clockwork" in best.passage and not best.shared
    assert [best.passage[a:b].lower() for a, b in best.highlights] == ["keeper", "clockwork"]
    assert ("c1", None, "title") in found(db, "u1", "moon tides")  # the title: "Tides and the moon"
    assert found(db, "u1", "Fresnel") == []  # a failed answer is not the transcript
    assert found(db, "u1", "the and of") == []  # nothing but stop words


def test_a_search_never_finds_a_hidden_background_nor_another_users_unshared_chat(db):
    chat_of(db, "c1")
    assert "4711" in read_background(db, "c1")  # the harbour card's gate code: in the background only
    assert found(db, "u1", "4711 gate code") == []
    chat_of(db, "theirs", owner="u3")
    assert found(db, "u3", "clockwork")  # their own
    assert [c for c, _, _ in found(db, "u1", "clockwork")] == ["c1"]
    assert found(db, "u2", "clockwork") == []


def test_a_chat_shared_with_someone_is_in_their_search_until_it_is_unshared(db):
    chat_of(db, "c1")
    db.collection(CHAT_VIEWERS).document(chat_viewer_id("c1", "u2")).set(ChatViewer("c1", "u1", "u2").to_dict())
    index.add_readers(db, "c1", ["u2"])
    hits = search_chats(db, "u2", "clockwork").results
    assert [(r.chat_id, r.shared) for r in hits] == [("c1", True)]
    db.collection(CHAT_VIEWERS).document(chat_viewer_id("c1", "u2")).delete()
    assert found(db, "u2", "clockwork") == []  # unshared: the access check holds before the index is updated
    index.remove_readers(db, "c1", ["u2"])
    assert not (db.collection(CHAT_SEARCH).document("u2").get().to_dict() or {}).get("chats")


def test_a_viewer_who_leaves_a_chat_loses_it_and_only_a_viewer_can_leave(db):
    chat_of(db, "c1")
    db.collection(CHAT_VIEWERS).document(chat_viewer_id("c1", "u2")).set(ChatViewer("c1", "u1", "u2").to_dict())
    index.add_readers(db, "c1", ["u2"])
    for uid, chat in (("u1", "c1"), ("u3", "c1"), ("u2", "no-such-chat")):  # the owner, a stranger, nothing
        with pytest.raises(NotFound, match="not shared with you"):
            leave_chat(db, uid, chat)
    leave_chat(db, "u2", "c1")
    assert not db.collection(CHAT_VIEWERS).document(chat_viewer_id("c1", "u2")).get().exists
    assert not (db.collection(CHAT_SEARCH).document("u2").get().to_dict() or {}).get("chats")
    assert found(db, "u1", "clockwork")  # the owner's chat is untouched
    with pytest.raises(NotFound):
        leave_chat(db, "u2", "c1")  # once


def test_a_later_turn_is_added_and_a_deleted_chat_leaves_nothing(db):
    chat_of(db, "c1")
    db.collection("chat_messages").document("c1-m5").update({"status": "complete"})
    index.index_answer(db, "c1", 5)
    assert ("c1", 5, "assistant") in found(db, "u1", "Fresnel")
    db.collection(CHAT_VIEWERS).document(chat_viewer_id("c1", "u2")).set(ChatViewer("c1", "u1", "u2").to_dict())
    index.add_readers(db, "c1", ["u2"])
    delete_chat(db, "c1")
    for uid in ("u1", "u2"):
        assert "c1" not in repr(db.collection(CHAT_SEARCH).document(uid).get().to_dict())
    shards = [s.to_dict() for s in db.collection(CHAT_SEARCH_SHARDS).stream()]
    assert shards and all(not postings for s in shards for postings in s["p"].values())


def test_a_search_takes_a_slot_of_the_users_search_minute(db):
    chat_of(db, "c1")
    assert found(db, "u1", "clockwork")
    with pytest.raises(ResourceExhausted):
        search_chats(db, "u1", "clockwork", per_minute=1)


def test_a_search_of_more_than_its_limit_is_refused_naming_the_field():
    assert parsing.search_chats({"text": "w" * MAX_CHAT_SEARCH_CHARS}) == "w" * MAX_CHAT_SEARCH_CHARS
    for bad in ({"text": "w" * (MAX_CHAT_SEARCH_CHARS + 1)}, {"text": "  "}, {"text": 5}, {}):
        with pytest.raises(InvalidArgument, match=r"^text: "):
            parsing.search_chats(bad)
