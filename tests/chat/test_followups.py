"""suggestFollowups: after an answer, up to three questions from the titles of the
cards nearest to the ones it cited that it did not cite, through the real
Functions, Auth and Firestore emulators. Only the chat's owner gets them (they
name cards behind the chat); never a card the owner may not read."""

from __future__ import annotations

import pytest
from conftest import CallError

from cardchat.chat.followups import MAX_FOLLOWUPS, TITLE_CHARS, cited, question, questions
from cardchat.schema.documents import CARDS, CHAT_MESSAGES, CHATS, Card
from cardchat.schema.messages import ChatMessage
from chat_support import write_chat

pytestmark = pytest.mark.functions

CHAT = "followups-chat"
ANSWER = f"{CHAT}-a1"


@pytest.fixture
def chat(app_db, sign_up):
    """A's published chat over five cards (one of B's, private) whose one answer cites the first."""
    a_uid, a_token = sign_up()
    b_uid, b_token = sign_up()
    cards = {
        "k-beam": Card("Lighthouse beam", "The lighthouse beam turns once every twelve seconds.", a_uid),
        "k-lens": Card("Lighthouse lens", "The lighthouse lens is a Fresnel lens that bends the beam.", a_uid),
        "k-keeper": Card("Lighthouse keeper", "The lighthouse keeper tends the beam and the lens at night.", a_uid),
        "k-tax": Card("Quarterly tax", "The quarterly tax payment is due after each quarter.", a_uid),
        "b-secret": Card("Lighthouse heist", "B's private plan about the lighthouse beam.", b_uid),
    }
    batch = app_db.batch()
    for cid, card in cards.items():
        batch.set(app_db.collection(CARDS).document(cid), card.to_dict())
    batch.commit()
    messages = [
        (
            f"{CHAT}-q0",
            ChatMessage(chat=CHAT, message_index=0, role="user", content="How fast is the beam?", status="complete"),
        ),
        (
            ANSWER,
            ChatMessage(
                chat=CHAT,
                message_index=1,
                role="assistant",
                content="It turns every twelve seconds [1].",
                status="complete",
                sources=[1],
            ),
        ),
    ]
    write_chat(app_db, CHAT, messages, owner=a_uid, card_ids=list(cards))
    app_db.collection(CHATS).document(CHAT).update({"published": True})
    return {"a": (a_uid, a_token), "b": (b_uid, b_token)}


def test_the_owner_gets_questions_from_the_nearest_uncited_cards(chat, call):
    out = call("suggestFollowups", {"message_id": ANSWER}, chat["a"][1])
    asked = out["questions"]
    assert 1 <= len(asked) <= MAX_FOLLOWUPS
    assert set(asked[:2]) == {question("Lighthouse lens"), question("Lighthouse keeper")}
    assert not any("beam" in q for q in asked)  # the cited card is what the answer used already
    assert not any("heist" in q for q in asked)  # B's card, which A may not read, though the chat names it


def test_no_one_but_the_owner_gets_them(chat, call, app_db):
    for token in (chat["b"][1],):  # a visitor of the published chat
        with pytest.raises(CallError) as e:
            call("suggestFollowups", {"message_id": ANSWER}, token)
        assert e.value.status == "PERMISSION_DENIED" and "Lighthouse" not in e.value.message
    with pytest.raises(CallError) as e:
        call("suggestFollowups", {"message_id": ANSWER})
    assert e.value.status == "UNAUTHENTICATED"
    for data, status in [
        ({"message_id": "missing"}, "NOT_FOUND"),
        ({}, "INVALID_ARGUMENT"),
        ({"message_id": f"{CHAT}-q0"}, "FAILED_PRECONDITION"),
    ]:
        with pytest.raises(CallError) as e:
            call("suggestFollowups", data, chat["a"][1])
        assert e.value.status == status, data


def test_an_answer_citing_nothing_readable_has_none(chat, call, app_db):
    app_db.collection(CHAT_MESSAGES).document(ANSWER).update({"sources": []})
    assert call("suggestFollowups", {"message_id": ANSWER}, chat["a"][1]) == {"questions": []}


def test_questions_come_from_titles():
    assert cited(["a", "", "c"], [3, 2, 1, 9, 0, 3]) == ["c", "a"]  # withdrawn and unknown numbers name nothing
    assert question("Neap tides") == "What do the cards say about “Neap tides”?"
    assert question("Why do tides turn?") == "Why do tides turn?"
    assert question("Tides.") == "What do the cards say about “Tides”?"
    long = question("x" * 500)
    assert "x" * (TITLE_CHARS - 1) + "…" in long and "x" * TITLE_CHARS not in long
    got = questions(["Tides", "", "  tides ", "Moon", "Beam", "Stars", "Sun"], ["Beam"])
    assert got == [question("Tides"), question("Moon"), question("Stars")]
