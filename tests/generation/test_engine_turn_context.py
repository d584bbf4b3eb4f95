"""Per-turn retrieval end to end on the real emulator: createChat ranks for the
first question, a follow-up on another topic brings its card into the hidden
context, the model is given it (the recorded wire request), the offline
answerer quotes it under a number that stays the card's across turns,
retries and branches, and no client-readable document learns of it."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from google.cloud.firestore import FieldFilter
from google.cloud.firestore_v1.document import DocumentReference

from cardchat.access.permissions import grant_ai
from cardchat.chat import branch as branches
from cardchat.chat import create as chats
from cardchat.chat.turns import post_message, retry_message
from cardchat.generation.engine import generate
from cardchat.parsing import requests
from cardchat.repo import messages as messages_repo
from cardchat.repo.chats import read_background
from cardchat.schema.documents import CARDS, CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, CHAT_PRIVATE, CHATS, Card
from engine_support import CLAUDE, LENS, LENS_CARD, anthropic_wire, quick, store_embedded, tide_notes
from provider_wire import anthropic_text

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "quick"]  # fixtures, used by name

FOLLOW_UP = "What kind of lens does the lighthouse use?"


def seed(db) -> list[str]:
    """Thirty cards about tides (enough to fill a 5 % background) and a few
    on other topics, one of them the lens card; all embedded, so the ranking
    does not depend on how fast the machine embeds."""
    cards = tide_notes("u1")
    cards |= {
        "garden": Card("Garden", "Tomatoes want sun and water every evening. " * 30, "u1"),
        "bread": Card("Bread", "Sourdough rises overnight in a cool kitchen. " * 30, "u1"),
        LENS: LENS_CARD,
    }
    return store_embedded(db, cards)


def new_chat(db, model: str = "offline-extractive") -> str:
    grant_ai(db, "u1")  # an answer on the deployment's key needs AI use granted (checked again by the run)
    req = requests.create_chat(
        {
            "card_ids": seed(db),
            "initial_message": "Why are there two tides a day?",
            "model": model,
            "background_percentage": 0.05 if model == "offline-extractive" else 0.01,
        },
        env={"ANTHROPIC_API_KEY": "k"},
    )
    return chats.create_chat(db, "u1", req).chat_id


def private(db, chat_id: str) -> dict:
    return db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()


def last_answer(db, chat_id: str) -> tuple[str, dict]:
    message_id, message = messages_repo.chat_messages(db, chat_id)[-1]
    return message_id, message.to_dict()


def client_readable(db, chat_id: str) -> str:
    """Everything a visitor of the published chat may read of it."""
    docs = [db.collection(CHATS).document(chat_id).get().to_dict()]
    for name in (CHAT_MESSAGES, CHAT_MESSAGES_STREAMING):
        docs += [d.to_dict() for d in db.collection(name).where(filter=FieldFilter("chat", "==", chat_id)).stream()]
    return json.dumps(docs, default=str)


def test_a_follow_up_on_another_topic_is_answered_from_its_card_under_a_stable_number(db):
    chat_id = new_chat(db)
    first_id, _ = last_answer(db, chat_id)
    assert generate(db, first_id) == "complete"
    start = private(db, chat_id)
    assert LENS not in start["card_ids"] and "Fresnel" not in read_background(db, chat_id)
    assert start["cards_considered"] == 33 and start["cards_packed"] == len(start["card_ids"])
    assert start["cards_cut"] == 33 - len(start["card_ids"]) > 0

    stub = post_message(db, "u1", chat_id, FOLLOW_UP)
    assert generate(db, stub) == "complete"
    after = private(db, chat_id)
    n = after["card_ids"].index(LENS) + 1
    assert after["card_ids"][: len(start["card_ids"])] == start["card_ids"]  # earlier numbers unchanged
    assert n > len(start["card_ids"])
    answer = last_answer(db, chat_id)[1]["content"]
    assert "Fresnel lens" in answer and f"[{n}]" in answer
    (turn,) = after["context_turns"]
    assert turn["message_index"] == 3 and turn["considered"] == 33
    added = {a["card"]: a for a in turn["added"]}
    assert added[LENS]["n"] == n and added[LENS]["rank"] >= 1 and added[LENS]["score"] > 0
    assert after["cards_packed"] == len(start["card_ids"]) + len(turn["added"])
    assert "Fresnel" in read_background(db, chat_id)
    readable = client_readable(db, chat_id)
    assert LENS not in readable and "lighthouse-lens" not in readable  # a private card's id
    assert "Fresnel" not in json.dumps(db.collection(CHATS).document(chat_id).get().to_dict(), default=str)

    # a retry of the follow-up: ranked again, the same card under the same number, one record
    db.collection(CHAT_MESSAGES).document(stub).update({"status": "failed", "error": "x"})
    retry_message(db, "u1", stub)
    assert generate(db, stub) == "complete"
    again = private(db, chat_id)
    assert again["card_ids"] == after["card_ids"]
    assert [t["message_index"] for t in again["context_turns"]] == [3]
    assert f"[{n}]" in last_answer(db, chat_id)[1]["content"]
    assert read_background(db, chat_id).count("Fresnel lens") == 1

    # a branch re-asking the follow-up: the source's additions for it are not copied, and the
    # branch's own ranking brings the lens back under the number it has in the source
    branch_id = branches.branch_chat(db, "u1", chat_id, 2, "Which lens does the lighthouse have?")
    assert "Fresnel" not in read_background(db, branch_id)
    assert private(db, branch_id)["card_ids"] == after["card_ids"]
    assert generate(db, last_answer(db, branch_id)[0]) == "complete"
    assert f"[{n}]" in last_answer(db, branch_id)[1]["content"]
    assert private(db, branch_id)["card_ids"].index(LENS) + 1 == n


def test_the_provider_is_given_the_follow_ups_cards(db, anthropic_wire):
    chat_id = new_chat(db, CLAUDE)
    anthropic_wire.responses = [anthropic_text("Twice [1]."), anthropic_text("A Fresnel lens.")]
    assert generate(db, last_answer(db, chat_id)[0]) == "complete"
    stub = post_message(db, "u1", chat_id, FOLLOW_UP)
    assert generate(db, stub) == "complete"

    first, follow_up = (anthropic_wire.body(i)["system"][0]["text"] for i in (0, 1))
    assert "Fresnel" not in first
    n = private(db, chat_id)["card_ids"].index(LENS) + 1
    assert f'<card n="{n}" ' in follow_up and "first-order Fresnel lens, ground in Paris" in follow_up
    assert follow_up.startswith(first)  # the original background, unchanged, then the additions
    assert LENS not in client_readable(db, chat_id)


def test_a_public_card_a_follow_up_adds_is_linked_for_visitors_only_once_cited(db, anthropic_wire):
    chat_id = new_chat(db, CLAUDE)
    db.collection(CARDS).document(LENS).update({"visibility": "public"})
    anthropic_wire.responses = [anthropic_text("Twice [1]."), anthropic_text("A Fresnel lens.")]
    assert generate(db, last_answer(db, chat_id)[0]) == "complete"
    assert generate(db, post_message(db, "u1", chat_id, FOLLOW_UP)) == "complete"
    n = private(db, chat_id)["card_ids"].index(LENS) + 1
    assert LENS not in client_readable(db, chat_id)  # packed by the follow-up, public, but cited by no answer

    anthropic_wire.responses.append(anthropic_text(f"A Fresnel lens [{n}]."))
    assert generate(db, post_message(db, "u1", chat_id, "Where was it ground?")) == "complete"
    assert db.collection(CHATS).document(chat_id).get().get("public_citations") == {str(n): LENS}


def test_an_answer_reads_its_chats_private_document_once(db, monkeypatch):
    """The context steps (re-check, pins, this turn's cards) and the final write share one read of
    ChatPrivate: counted on the real client's document reads, whichever step asks."""
    chat_id = new_chat(db)
    assert generate(db, last_answer(db, chat_id)[0]) == "complete"
    stub = post_message(db, "u1", chat_id, FOLLOW_UP)
    reads: Counter[str] = Counter()
    real_get = DocumentReference.get

    def counted(self, *args, **kwargs):
        reads[self._path[0]] += 1
        return real_get(self, *args, **kwargs)

    monkeypatch.setattr(DocumentReference, "get", counted)
    assert generate(db, stub) == "complete"
    assert private(db, chat_id)["context_turns"], "the follow-up's own cards were ranked and stored"
    assert reads[CHAT_PRIVATE] == 1 + 1  # the run's one read, and this test's `private` above
