"""A card tagged outdated leaves default chats, searches, follow-ups and MCP results
(chat/candidates.py), and comes back when asked for by id, by its title, or by the tag itself."""

from __future__ import annotations

import pytest

from cardchat.access.permissions import grant_ai
from cardchat.chat import create as chats
from cardchat.chat.card_search import search_cards
from cardchat.generation.turn_context import rank_source
from cardchat.mcpserver.search import search_cards as mcp_search
from cardchat.parsing import requests
from cardchat.parsing.collection_query import CollectionQuery
from cardchat.schema.documents import CHAT_PRIVATE, OUTDATED_TAG, Card
from engine_support import store_embedded

pytestmark = pytest.mark.emulator

OLD = "old-setup"
CARDS = {
    OLD: Card("Old setup guide", "Install Python 3.9 before running the emulators.", "u1", tags=[OUTDATED_TAG]),
    "new-setup": Card("Setup guide", "Install Python 3.11 before running the emulators.", "u1"),
    "bread": Card("Bread", "Sourdough rises overnight in a cool kitchen.", "u1"),
}


def test_the_tag_is_shared_with_the_spa():
    assert OUTDATED_TAG == "outdated"


def test_a_search_and_an_mcp_search_leave_it_out_unless_it_is_named_or_its_tag_asked_for(db):
    store_embedded(db, CARDS)

    def searched(text: str, **query) -> list[str]:
        req = requests.search_cards({"text": text, **query})
        return [c["id"] for c in search_cards(db, "u1", req, per_minute=1000).to_dict()["cards"]]

    assert OLD not in searched("install python before the emulators")
    assert OLD in searched("the old setup guide")  # named by its title
    assert searched("install python", tag=OUTDATED_TAG) == [OLD]
    assert OLD not in [h.id for h in mcp_search(db, "u1", "install python emulators", 10)]
    assert OLD in [h.id for h in mcp_search(db, "u1", "what does the Old setup guide say", 10)]


def test_a_chat_over_a_query_leaves_it_out_and_one_over_its_id_keeps_it(db):
    store_embedded(db, CARDS)
    grant_ai(db, "u1")

    def packed(**source) -> list[str]:
        data = {"initial_message": "Which Python do I install?", "model": "offline-extractive", **source}
        chat_id = chats.create_chat(db, "u1", requests.create_chat(data)).chat_id
        return db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()["card_ids"]

    assert OLD not in packed(query={"scope": "mine"}) and "new-setup" in packed(query={"scope": "mine"})
    assert OLD in packed(card_ids=list(CARDS))


def test_a_follow_ups_ranking_leaves_it_out_unless_the_question_names_it(db):
    store_embedded(db, CARDS)
    mine = CollectionQuery()
    assert OLD not in rank_source(db, "u1", mine, "Which Python do I install?").ids
    assert OLD in rank_source(db, "u1", mine, "And what did the old setup guide say?").ids
    assert OLD in rank_source(db, "u1", list(CARDS), "Which Python do I install?").ids
