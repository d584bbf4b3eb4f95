"""Branching a chat at one of its questions, on the real Firestore emulator."""

from __future__ import annotations

from datetime import timedelta

import pytest

from cardchat.access.ratelimit import Limits
from cardchat.chat import branch as branches
from cardchat.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from cardchat.ids import first_message_id
from cardchat.llm.models import OFFLINE_MODEL_ID
from cardchat.parsing.requests import branch_chat as parse_branch
from cardchat.repo import messages as messages_repo
from cardchat.repo.chats import read_background
from cardchat.schema.documents import CHAT_MESSAGES, CHAT_PRIVATE, CHATS
from cardchat.schema.documents import now as utc_now
from chat_support import BIG_CARDS, T0, make_chat

pytestmark = pytest.mark.emulator

CONVERSATION = [
    ("user", "complete", "Why are there tides?"),
    ("assistant", "complete", "The moon [1]."),
    ("user", "complete", "How often?"),
    ("assistant", "complete", "Twice a day [1]."),
]


def turns(db, chat_id: str) -> list[tuple[int, str, str, str]]:
    return [(m.message_index, m.role, m.status, m.content) for _, m in messages_repo.chat_messages(db, chat_id)]


def test_a_branch_keeps_the_turns_before_the_edited_question_and_leaves_the_source_alone(db):
    make_chat(db, CONVERSATION, cards=BIG_CARDS)
    src_answer = messages_repo.chat_messages(db, "src")[1][0]
    checks = [{"sentence": 0, "n": 1, "verdict": "weak"}]
    db.collection(CHAT_MESSAGES).document(src_answer).update({"sources": [1], "citation_checks": checks})
    before = turns(db, "src")

    _, index, text = parse_branch({"chat_id": "src", "message_index": 2, "content": "  How high do they get?  "})
    new_id = branches.branch_chat(db, "u1", "src", index, text)  # parsed: stored trimmed

    assert turns(db, new_id) == [
        (0, "user", "complete", "Why are there tides?"),
        (1, "assistant", "complete", "The moon [1]."),
        (2, "user", "complete", "How high do they get?"),
        (3, "assistant", "ready", ""),
    ]
    stub = messages_repo.chat_messages(db, new_id)[3][1].to_dict()
    assert stub["model"] == OFFLINE_MODEL_ID and stub["lease_expires"] > utc_now()
    copied = messages_repo.chat_messages(db, new_id)[1][1].to_dict()
    assert copied["timestamp"] == T0 + timedelta(minutes=1)  # when it was said, not when it was copied
    assert copied["sources"] == [1]  # same background, same numbers: which [n] cite stays so
    assert copied["citation_checks"] == checks  # and what each was found to say
    chat = db.collection(CHATS).document(new_id).get().to_dict()
    assert chat["owner"] == "u1" and chat["published"] is False  # a branch starts private
    assert chat["title"] == "Tides and the moon" + branches.TITLE_SUFFIX
    assert chat["message_count"] == 4
    assert chat["public_citations"] == {}  # the copied answers cite [1] alone, not a public card
    source = db.collection(CHAT_PRIVATE).document("src").get().to_dict()
    private = db.collection(CHAT_PRIVATE).document(new_id).get().to_dict()
    assert private["branched_from"] == {"chat": "src", "message_index": 2}
    for same in (
        "card_ids",
        "background_tokens",
        "background_length",
        "card_count_requested",
        "cards_unranked",
        "collection",
    ):
        assert private[same] == source[same], same
    assert private["collection"] == {"description": "ocean notes", "configuration": {"tag": "ocean"}}
    assert read_background(db, new_id) == read_background(db, "src")  # copied on the server, all parts
    assert turns(db, "src") == before
    again = branches.branch_chat(db, "u1", new_id, 2, "And how low?")  # a branch of a branch
    assert db.collection(CHATS).document(again).get().get("title") == "Tides and the moon" + branches.TITLE_SUFFIX


def test_branching_the_first_question_starts_over_under_its_own_title(db):
    make_chat(db, CONVERSATION)
    new_id = branches.branch_chat(db, "u1", "src", 0, "What makes spring tides?")
    assert turns(db, new_id) == [(0, "user", "complete", "What makes spring tides?"), (1, "assistant", "ready", "")]
    # the ids createChat gives, so the first answer retitles the branch as it would a new chat
    ids = [i for i, _ in messages_repo.chat_messages(db, new_id)]
    assert ids == [first_message_id(new_id, 0), first_message_id(new_id, 1)]
    assert db.collection(CHATS).document(new_id).get().get("title") == "What makes spring tides?"


def test_an_unfinished_answer_is_not_copied(db):
    make_chat(db, CONVERSATION[:2] + [("user", "complete", "How often?"), ("assistant", "failed", "Twi")])
    new_id = branches.branch_chat(db, "u1", "src", 2, "How often, exactly?")
    assert [t[3] for t in turns(db, new_id)] == ["Why are there tides?", "The moon [1].", "How often, exactly?", ""]
    make_chat(db, [("user", "complete", "q"), ("assistant", "streaming", "partial"), ("user", "complete", "q2")], "odd")
    other = branches.branch_chat(db, "u1", "odd", 2, "q2 again")
    assert [t[1:] for t in turns(db, other)] == [
        ("user", "complete", "q"),
        ("user", "complete", "q2 again"),
        ("assistant", "ready", ""),
    ]


def test_only_the_owner_branches_and_only_at_a_question(db):
    make_chat(db, CONVERSATION)
    with pytest.raises(PermissionDenied):
        branches.branch_chat(db, "u2", "src", 2, "mine now?")  # even though the chat is published
    with pytest.raises(NotFound):
        branches.branch_chat(db, "u1", "nope", 0, "q")
    for index in (1, 3, 4, 99):
        with pytest.raises(InvalidArgument, match="message_index"):
            branches.branch_chat(db, "u1", "src", index, "q")
    with pytest.raises(InvalidArgument, match=r"^content:"):
        parse_branch({"chat_id": "src", "message_index": 0, "content": "   "})
    for bad in (-1, 1.5, "2", True, None, 2**63):
        with pytest.raises(InvalidArgument, match=r"^message_index:"):
            parse_branch({"chat_id": "src", "message_index": bad, "content": "q"})
    assert db.collection(CHATS).count().get()[0][0].value == 1  # nothing was created


def test_a_chat_whose_model_has_no_key_any_more_cannot_branch(db, monkeypatch):
    make_chat(db, CONVERSATION)
    db.collection(CHATS).document("src").update({"model": "claude-sonnet-4-6"})
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(FailedPrecondition, match="not available"):
        branches.branch_chat(db, "u1", "src", 2, "q")


def test_a_chat_on_the_callers_own_key_branches_without_a_deployment_key(db, monkeypatch):
    make_chat(db, CONVERSATION)
    db.collection(CHATS).document("src").update({"model": "claude-sonnet-4-6"})
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    new_id = branches.branch_chat(db, "u1", "src", 2, "q", limits=Limits().on_own_key())
    assert db.collection(CHATS).document(new_id).get().get("model") == "claude-sonnet-4-6"
