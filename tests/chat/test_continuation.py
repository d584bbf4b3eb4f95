"""continueChat on the real Firestore emulator: a reader of someone else's
chat carries it on in a chat of their own, over the cards its copied answers
cite that they may view (or a scope of their own choosing besides), and
nothing of the source's other cards."""

from __future__ import annotations

import json
import re

import pytest
from google.cloud.firestore import DELETE_FIELD

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
from cardchat.schema.chat_sources import CHAT_SOURCES
from cardchat.schema.documents import (
    CARDS,
    CHAT_BACKGROUNDS,
    CHAT_MESSAGES,
    CHAT_PRIVATE,
    CHAT_VIEWERS,
    CHATS,
    RATE_LIMITS,
    Card,
    ChatViewer,
)
from chat_support import CARDS_OF_CHAT
from chat_support import make_cited_chat as make_chat

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
    return [(m.message_index, m.role, m.status, m.content) for _, m in messages_repo.chat_messages(db, chat_id)]


def _share(db, chat_id: str, uid: str) -> None:
    """The viewer doc shareChat writes when the owner u1 shares `chat_id` with `uid`."""
    db.collection(CHAT_VIEWERS).document(chat_viewer_id(chat_id, uid)).set(ChatViewer(chat_id, "u1", uid).to_dict())


def doc(db, collection: str, chat_id: str) -> dict:
    return db.collection(collection).document(chat_id).get().to_dict()


def test_a_visitor_continues_a_published_chat_over_the_cards_they_may_view_only(db):
    make_chat(db, CONVERSATION)  # u1's, published; u3 is any signed-in visitor
    request = parse_continue({"chat_id": "src"})
    assert request.query is None  # the default: the cited cards alone
    new_id = continuation.continue_chat(db, "u3", request.chat_id, request.model, request.background_fraction, ALLOWED)

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
    # "shared" is u2's own card (shared with u1), but no answer cites it: it stays out with u1's "own"
    assert doc(db, CHAT_PRIVATE, new_id)["card_ids"] == ["", "", "open", "", "open-too"]
    background = read_background(db, new_id)
    assert "gate code is 4711" not in background and "The moon pulls the oceans" not in background


#: The source's cards with one more public card after those cited: u3 may read it, no answer cites it.
UNCITED = {**CARDS_OF_CHAT, "bore": Card("Tidal bores", "A tidal bore runs up the Severn.", "u2", visibility="public")}


def test_nothing_of_the_new_chat_tells_of_source_cards_no_copied_answer_cites(db):
    make_chat(db, CONVERSATION, cards=UNCITED)  # answers cite [1][3][5]; [6] is readable to u3, uncited
    new_id = continuation.continue_chat(db, "u3", "src", None, 0.5, ALLOWED)
    private = doc(db, CHAT_PRIVATE, new_id)
    # the cited numbers u3 may follow, "" at every number no copied answer cites or u3 may not read
    assert private["card_ids"] == ["", "", "open", "", "open-too"]
    assert (private["card_count_requested"], private["cards_considered"], private["cards_packed"]) == (2, 2, 2)
    assert private["cards_cut"] == 0 and private["cards_by_others"] == 2 and private["context_turns"] == []
    assert doc(db, CHATS, new_id)["public_citations"] == {"3": "open", "5": "open-too"}
    assert sorted(doc(db, CHAT_SOURCES, new_id)["card_ids"]) == ["open", "open-too"]
    assert doc(db, CHAT_BACKGROUNDS, new_id)["tokens"] == private["background_tokens"]
    for written in (private, doc(db, CHATS, new_id), doc(db, CHAT_SOURCES, new_id), doc(db, CHAT_BACKGROUNDS, new_id)):
        assert "bore" not in json.dumps(written, default=str)
    assert "Tidal bores" not in read_background(db, new_id)


def test_a_scope_the_caller_chooses_joins_the_cited_cards_under_numbers_after_theirs(db):
    make_chat(db, CONVERSATION, cards=UNCITED)
    db.collection(CARDS).document("u3-moon").set(
        Card("Moon phases", "A new moon rises at dawn.", "u3", "public").to_dict()
    )
    request = parse_continue({"chat_id": "src", "query": {"scope": "mine"}})
    assert request.query is not None and request.query.scope == "mine"
    new_id = continuation.continue_chat(db, "u3", "src", None, 0.5, ALLOWED, query=request.query)
    private = doc(db, CHAT_PRIVATE, new_id)
    assert private["card_ids"] == ["", "", "open", "", "open-too", "u3-moon"]
    assert private["card_count_requested"] == 3 and private["collection_query"] == {"scope": "mine"}
    source = doc(db, CHAT_SOURCES, new_id)
    assert source["collection_query"] == {"scope": "mine"} and source["card_ids"] == []
    # public_citations holds what copied answers cite: u3's own public card waits for an answer citing it
    assert doc(db, CHATS, new_id)["public_citations"] == {"3": "open", "5": "open-too"}
    background = read_background(db, new_id)
    assert 'n="6"' in background and "A new moon rises at dawn" in background and "Tidal bores" not in background


def test_answers_citing_no_card_the_caller_may_read_leave_a_background_of_none(db):
    make_chat(db, [*CONVERSATION[:2], ("user", "complete", "And neap tides?"), ("assistant", "complete", "See [4].")])
    # an answer made before `sources` were kept cites none; [4] is u1's own card
    db.collection(CHAT_MESSAGES).document("src-m1").update({"sources": DELETE_FIELD})
    new_id = continuation.continue_chat(db, "u3", "src", None, 0.5, ALLOWED)
    private = doc(db, CHAT_PRIVATE, new_id)
    # up to the highest cited number, so that a card added later never takes a number a copied answer cites
    assert private["card_ids"] == ["", "", "", ""]
    assert (private["card_count_requested"], private["cards_packed"], private["cards_by_others"]) == (0, 0, 0)
    assert doc(db, CHAT_SOURCES, new_id)["card_ids"] == [] and doc(db, CHATS, new_id)["public_citations"] == {}
    assert "<card " not in read_background(db, new_id)


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
        {"chat_id": "src", "query": {"scope": "everyone"}},
        {"chat_id": "src", "query": "mine"},
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
