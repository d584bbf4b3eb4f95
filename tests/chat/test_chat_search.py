"""Searching one's chats (chat/chat_search.py over repo/chat_search.py's index) on the
Firestore emulator: titles and transcripts of the caller's own chats and of chats shared
with them, the passage of each hit and where it is; never another user's unshared chat,
never a hidden background, nothing left of a chat once it is deleted."""

from __future__ import annotations

import itertools
import string

import pytest

from cardchat.chat.chat_search import search_chats
from cardchat.chat.share import leave_chat
from cardchat.errors import InvalidArgument, NotFound, ResourceExhausted
from cardchat.ids import chat_viewer_id
from cardchat.parsing import requests as parsing
from cardchat.repo import chat_search as index
from cardchat.repo import messages as messages_repo
from cardchat.repo.chats import delete_chat, read_background
from cardchat.retrieval import chat_terms
from cardchat.schema.chat_search import CHAT_SEARCH, CHAT_SEARCH_SHARDS, MAX_CHAT_SEARCH_CHARS
from cardchat.schema.documents import CHAT_MESSAGES, CHAT_VIEWERS, CHATS, ChatViewer
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


def answered(db, chat_id: str, index_of_answer: int) -> None:
    """What an answer's run hands the index once answer `index_of_answer` is complete: the chat's
    messages as it read them (here read from the store), its owner and title."""
    chat = db.collection("chats").document(chat_id).get().to_dict()
    said = messages_repo.chat_messages(db, chat_id)
    index.index_answer(db, chat_id, chat["owner"], chat.get("title") or "", said, index_of_answer)


def chat_of(db, chat_id: str, owner: str = "u1", turns=TURNS) -> str:
    make_chat(db, turns, chat_id=chat_id)
    if owner != "u1":
        db.collection("chats").document(chat_id).update({"owner": owner})
    answered(db, chat_id, 3)  # the turn of answer 3: a reader without the chat gets all of it so far
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
    answered(db, "c1", 5)
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


def words_in_shard_of(word: str, count: int) -> list[str]:
    """`count` made-up words whose terms land in the shard of `word`'s: what a stranger who wants to
    fill that shard of a reader's index would write."""
    shard = chat_terms.shard_of(chat_terms.term_key(word))
    out = []
    for letters in itertools.product(string.ascii_lowercase, repeat=5):
        w = "zq" + "".join(letters)
        if chat_terms.shard_of(chat_terms.term_key(w)) == shard:
            out.append(w)
            if len(out) == count:
                return out
    raise AssertionError("not enough words")


def shared_flood(db, n: int, words: list[str]) -> str:
    """Chat `n` of a stranger, one question of `words`, shared with u1 and added to u1's index."""
    chat_id = f"flood{n:04d}"
    db.collection(CHATS).document(chat_id).set({"owner": "stranger", "title": "Words", "message_count": 1})
    message = {"chat": chat_id, "message_index": 0, "role": "user", "status": "complete", "content": " ".join(words)}
    db.collection(CHAT_MESSAGES).document(f"{chat_id}-m0").set(message)
    db.collection(CHAT_VIEWERS).document(chat_viewer_id(chat_id, "u1")).set(
        ChatViewer(chat_id, "stranger", "u1").to_dict()
    )
    index.add_readers(db, chat_id, ["u1"])
    return chat_id


def test_a_strangers_shared_chats_full_of_chosen_words_never_crowd_out_the_readers_own_chat(db):
    words = words_in_shard_of("clockwork", 48_000)
    size, used, n = 16_000, 0, 0
    while size >= 1 and used + size <= len(words) and n < 60:
        n += 1
        try:  # a write the index refuses is the stranger's loss; they try a smaller one
            shared_flood(db, n, words[used : used + size])
            used += size
        except Exception:
            size //= 2
    chat_of(db, "c1")
    assert ("c1", 3, "assistant") in found(db, "u1", "keeper clockwork")
    head = db.collection(CHAT_SEARCH).document("u1").get().to_dict()["chats"]
    assert all(v["postings"] <= index.MAX_SHARED_POSTINGS for v in head.values() if v.get("shared"))


def filled_to_the_brim(ref) -> None:
    """`ref` a shard holding postings up to Firestore's 1 MiB a document, so that nothing more fits."""
    ref.set({"owner": "u2", "p": {f"t{i:014d}": ["x" * 40] for i in range(17_000)}})
    more, at = 1_024, 17_000
    while more >= 1:
        try:
            ref.set({"p": {f"t{i:014d}": ["x" * 40] for i in range(at, at + more)}}, merge=True)
            at += more
        except Exception:
            more //= 2


def test_one_readers_full_index_does_not_stop_the_chat_reaching_its_other_readers(db):
    chat_of(db, "c1")
    for uid in ("u2", "u3"):
        db.collection(CHAT_VIEWERS).document(chat_viewer_id("c1", uid)).set(ChatViewer("c1", "u1", uid).to_dict())
    shard = chat_terms.shard_of(chat_terms.term_key("clockwork"))
    for shard_id in (f"u2_{shard}", f"u2_s{shard}"):  # wherever u2's index would take c1's words
        filled_to_the_brim(db.collection(CHAT_SEARCH_SHARDS).document(shard_id))
    index.add_readers(db, "c1", ["u2", "u3"])
    assert [c for c, _, _ in found(db, "u3", "clockwork")] == ["c1"]
