"""Card search during an answer on the real emulator, through Anthropic's SDK and wire format:
createChat with `look_further` packs the background as ever, the model's search_cards calls
are run over the chat's own cards, a card found joins the context under a new number the
answer cites, a 4th call is told the limit is reached and the answer still completes, a query
that matches nothing is told so; no reader of the chat learns of a search but the owner's
count of them."""

from __future__ import annotations

import json

import pytest
from google.cloud.firestore import FieldFilter

from cardchat.access.permissions import grant_ai
from cardchat.chat import create as chats
from cardchat.generation.engine import generate
from cardchat.generation.look_further import LIMIT_REACHED, NOTHING_MATCHED, NOTHING_NEW
from cardchat.parsing import requests
from cardchat.repo import messages as messages_repo
from cardchat.repo.chats import read_background
from cardchat.schema.accounts import ANSWER_USAGE
from cardchat.schema.documents import CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, CHAT_PRIVATE, CHATS
from engine_support import CLAUDE, LENS, LENS_CARD, anthropic_wire, quick, store_embedded, tide_notes
from provider_wire import anthropic_text, anthropic_tool_use

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "quick"]  # fixtures, used by name

QUERIES = ["lighthouse lens", "keeper log", "storm repairs", "anything else"]


def new_chat(db, look_further: bool | None = True) -> str:
    grant_ai(db, "u1")
    ids = store_embedded(db, {**tide_notes("u1"), LENS: LENS_CARD})
    asked = {"card_ids": ids, "initial_message": "Why are there two tides a day?", "model": CLAUDE}
    asked |= {"background_percentage": 0.01}
    if look_further is not None:
        asked["look_further"] = look_further
    req = requests.create_chat(asked, env={"ANTHROPIC_API_KEY": "k"})
    return chats.create_chat(db, "u1", req).chat_id


def private(db, chat_id: str) -> dict:
    return db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()


def client_readable(db, chat_id: str) -> str:
    """Everything a visitor of the published chat may read of it."""
    docs = [db.collection(CHATS).document(chat_id).get().to_dict()]
    for name in (CHAT_MESSAGES, CHAT_MESSAGES_STREAMING):
        docs += [d.to_dict() for d in db.collection(name).where(filter=FieldFilter("chat", "==", chat_id)).stream()]
    return json.dumps(docs, default=str)


def tool_result(body: dict) -> str:
    (result,) = body["messages"][-1]["content"]
    assert result["type"] == "tool_result"
    return result["content"]


def test_a_found_card_is_cited_under_a_new_number_and_a_fourth_call_is_told_the_limit(db, anthropic_wire):
    chat_id = new_chat(db)
    assert db.collection(CHATS).document(chat_id).get().get("look_further") is True
    start = private(db, chat_id)
    assert LENS not in start["card_ids"]  # the packing did not take it: the search must
    n = len(start["card_ids"]) + 1
    anthropic_wire.responses = [anthropic_tool_use(q, f"toolu_{i}") for i, q in enumerate(QUERIES)]
    anthropic_wire.responses.append(anthropic_text(f"A first-order Fresnel lens [{n}]."))
    answer_id, _ = messages_repo.chat_messages(db, chat_id)[-1]

    assert generate(db, answer_id) == "complete"
    sent = [json.loads(r.content) for r in anthropic_wire.requests]
    assert len(sent) == 5 and all(s["tools"][0]["name"] == "search_cards" for s in sent)
    assert all(s["system"] == sent[0]["system"] for s in sent)  # the packed background, unchanged
    found = tool_result(sent[1])
    assert f'<card n="{n}"' in found and "Fresnel" in found
    assert tool_result(sent[2]) == tool_result(sent[3]) == NOTHING_NEW  # it matched, and is held already
    assert tool_result(sent[4]) == LIMIT_REACHED

    message = messages_repo.get_message(db, answer_id)
    assert message is not None and message.content == f"A first-order Fresnel lens [{n}]."
    after = private(db, chat_id)
    assert after["card_ids"] == start["card_ids"] + [LENS]
    assert "Fresnel" in read_background(db, chat_id) and after["cards_packed"] == n
    (turn,) = after["context_turns"]
    assert turn["added"][0]["card"] == LENS and turn["added"][0]["searched"] is True
    assert db.collection(ANSWER_USAGE).document(answer_id).get().get("card_searches") == 3
    readable = client_readable(db, chat_id)
    for said in [*QUERIES, "search your cards", "search_cards", "keeper"]:
        assert said not in readable


def test_a_query_that_matches_nothing_is_told_so_and_nothing_is_added(db, anthropic_wire):
    chat_id = new_chat(db)
    start, background = private(db, chat_id), read_background(db, chat_id)
    anthropic_wire.responses = [anthropic_tool_use("zeppelin hangar"), anthropic_text("Your cards do not say.")]
    answer_id, _ = messages_repo.chat_messages(db, chat_id)[-1]

    assert generate(db, answer_id) == "complete"
    assert tool_result(json.loads(anthropic_wire.requests[1].content)) == NOTHING_MATCHED
    assert private(db, chat_id)["card_ids"] == start["card_ids"]
    assert read_background(db, chat_id) == background
    assert db.collection(ANSWER_USAGE).document(answer_id).get().get("card_searches") == 1


@pytest.mark.parametrize("look_further", [False, None], ids=["off", "default"])
def test_a_chat_without_look_further_offers_no_tool(db, anthropic_wire, look_further):
    chat_id = new_chat(db, look_further)
    assert db.collection(CHATS).document(chat_id).get().get("look_further") is False
    anthropic_wire.responses = [anthropic_text("Tides follow the moon [1].")]
    answer_id, _ = messages_repo.chat_messages(db, chat_id)[-1]
    assert generate(db, answer_id) == "complete"
    assert "tools" not in json.loads(anthropic_wire.requests[0].content)
    assert db.collection(ANSWER_USAGE).document(answer_id).get().get("card_searches") == 0
