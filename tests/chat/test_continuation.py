"""continueChat on the real Firestore emulator: a reader of someone else's
chat carries it on in a chat of their own, over the cards they may view."""

from __future__ import annotations

import re

import pytest

from cardchat.access.permissions import AIAccess
from cardchat.chat import continuation
from cardchat.chat.turns import post_message
from cardchat.errors import InvalidArgument, NotFound, PermissionDenied, ResourceExhausted
from cardchat.generation.engine import generate
from cardchat.ids import chat_viewer_id
from cardchat.llm.models import OFFLINE_MODEL_ID
from cardchat.parsing.requests import continue_chat as parse_continue
from cardchat.repo import messages as messages_repo
from cardchat.repo.chats import read_background
from cardchat.schema.documents import CHAT_BACKGROUNDS, CHAT_PRIVATE, CHAT_VIEWERS, CHATS, RATE_LIMITS, ChatViewer
from chat_support import make_chat

pytestmark = pytest.mark.emulator

CONVERSATION = [
    ("user", "complete", "Why are there tides?"),
    ("assistant", "complete", "The moon [1], and spring tides at new moon [3]."),
    ("user", "complete", "When are tides strongest?"),
    ("assistant", "complete", "At spring tides [3][5]."),
]
ALLOWED = AIAccess(may_use_ai=True)
#: What u1's background holds that no one else may read: their own card and one shared with u1 alone.
PRIVATE_WORDS = ("The moon pulls the oceans", "gate code is 4711", "Neap tides fall", "ocean notes")


def turns(db, chat_id: str) -> list[tuple[int, str, str, str]]:
    return [
        (m["message_index"], m["role"], m["status"], m["content"]) for _, m in messages_repo.chat_messages(db, chat_id)
    ]


def _share(db, chat_id: str, uid: str) -> None:
    """The viewer doc shareChat writes when the owner u1 shares `chat_id` with `uid`."""
    db.collection(CHAT_VIEWERS).document(chat_viewer_id(chat_id, uid)).set(ChatViewer(chat_id, "u1", uid).to_dict())


def doc(db, collection: str, chat_id: str) -> dict:
    return db.collection(collection).document(chat_id).get().to_dict()


def test_a_visitor_continues_a_published_chat_over_the_cards_they_may_view_only(db):
    make_chat(db, CONVERSATION)  # u1's, published; u3 is any signed-in visitor
    chat_id, model, pct = parse_continue({"chat_id": "src"})
    new_id = continuation.continue_chat(db, "u3", chat_id, model, pct, ALLOWED)

    assert turns(db, new_id) == [(i, r, s, c) for i, (r, s, c) in enumerate(CONVERSATION)]
    chat = doc(db, CHATS, new_id)
    assert chat["owner"] == "u3" and chat["published"] is False and chat["message_count"] == 4
    assert chat["model"] == OFFLINE_MODEL_ID and chat["title"] == "Tides and the moon" + continuation.TITLE_SUFFIX
    # the public cards keep the numbers the copied answers cite; the rest are plain [n]
    private = doc(db, CHAT_PRIVATE, new_id)
    assert private["card_ids"] == ["", "", "open", "", "open-too"]
    assert chat["public_citations"] == {"3": "open", "5": "open-too"}
    assert private["continued_from"] == {"chat": "src", "messages": 4}
    assert private["owner"] == "u3" and private["collection"] == {"description": "", "configuration": {}}
    assert private["card_count_requested"] == 2 and private.get("branched_from") is None
    # rebuilt for u3, never copied: none of u1's own or shared-with-u1 text, nor u1's description
    background = read_background(db, new_id)
    assert 'n="3"' in background and "Spring tides come with" in background and "Tide tables" in background
    # u2's public cards are someone else's to u3: marked so in the background, counted for the publish control
    assert len(re.findall(r'<card n="[35]" length="\d+" author="another user [0-9a-f]{6}" note="', background)) == 2
    assert private["cards_by_others"] == 2
    for words in PRIVATE_WORDS:
        assert words not in background, words
    head = doc(db, CHAT_BACKGROUNDS, new_id)
    assert head["owner"] == "u3" and head["tokens"] == private["background_tokens"] > 0
    assert doc(db, CHAT_PRIVATE, "src")["card_ids"] == ["own", "shared", "open", "mine-too", "open-too"]  # untouched


def test_a_viewer_it_is_shared_with_gets_the_cards_they_may_view(db):
    make_chat(db, CONVERSATION)
    db.collection(CHATS).document("src").update({"published": False})
    _share(db, "src", "u2")
    new_id = continuation.continue_chat(db, "u2", "src", None, 0.5, ALLOWED)
    # "shared" is u2's own card (shared with u1): u2 may read it, u1's "own" and "mine-too" stay out
    assert doc(db, CHAT_PRIVATE, new_id)["card_ids"] == ["", "shared", "open", "", "open-too"]
    background = read_background(db, new_id)
    assert "gate code is 4711" in background and "The moon pulls the oceans" not in background


def test_a_follow_up_in_the_continued_chat_is_answered_from_the_callers_background(db, monkeypatch):
    monkeypatch.setenv("CARDCHAT_OFFLINE_PACE_MS", "2")
    make_chat(db, CONVERSATION)
    new_id = continuation.continue_chat(db, "u3", "src", None, 0.5, ALLOWED)
    stub = post_message(db, "u3", new_id, "What makes the gate open at dawn?")
    assert generate(db, stub) == "complete"
    answer = db.collection("chat_messages").document(stub).get().to_dict()["content"]
    assert "4711" not in answer and "The moon pulls" not in answer


def test_an_unknown_chat_and_one_the_caller_may_not_read_are_the_same_not_found(db):
    make_chat(db, CONVERSATION)
    db.collection(CHATS).document("src").update({"published": False})
    _share(db, "src", "u2")
    with pytest.raises(NotFound) as unknown:
        continuation.continue_chat(db, "u3", "nope", None, 0.5, ALLOWED)
    with pytest.raises(NotFound) as unshared:
        continuation.continue_chat(db, "u3", "src", None, 0.5, ALLOWED)
    assert unknown.value.message == unshared.value.message  # existence is not revealed
    db.collection(CHAT_VIEWERS).document(chat_viewer_id("src", "u2")).delete()  # a viewer removed
    with pytest.raises(NotFound):
        continuation.continue_chat(db, "u2", "src", None, 0.5, ALLOWED)
    assert db.collection(CHATS).count().get()[0][0].value == 1  # nothing was created
    for bad in (
        {},
        {"chat_id": ""},
        {"chat_id": "src", "model": "gpt-9"},
        {"chat_id": "src", "background_percentage": 0},
    ):
        with pytest.raises(InvalidArgument):
            parse_continue(bad, env={})


def test_the_callers_ai_permission_and_rate_limit_apply(db, monkeypatch):
    make_chat(db, CONVERSATION)
    with pytest.raises(PermissionDenied):
        continuation.continue_chat(db, "u3", "src", None, 0.5, AIAccess(may_use_ai=False))
    assert not db.collection(RATE_LIMITS).document("u3").get().exists  # a refused call spends nothing
    monkeypatch.setenv("CARDCHAT_RATE_PER_MINUTE", "1")
    continuation.continue_chat(db, "u3", "src", None, 0.5, ALLOWED)
    with pytest.raises(ResourceExhausted, match="per minute"):
        continuation.continue_chat(db, "u3", "src", None, 0.5, ALLOWED)
    assert len(doc(db, RATE_LIMITS, "u3")["recent"]) == 1
    assert db.collection(CHATS).count().get()[0][0].value == 2
