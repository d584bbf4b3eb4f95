"""The MCP tool get_chat against the Firestore emulator: a chat is its
owner's alone, and a chat continued from someone else's lists only the cards
its copied answers cite, never the rest of the source's background."""

from __future__ import annotations

import pytest

from cardchat.access.permissions import AIAccess
from cardchat.chat import continuation
from cardchat.errors import NotFound
from cardchat.ids import chat_viewer_id
from cardchat.mcpserver.tools import get_chat
from cardchat.schema.documents import CHAT_VIEWERS, CHATS, Card, ChatViewer
from chat_support import CARDS_OF_CHAT, make_cited_chat

pytestmark = pytest.mark.emulator

CONVERSATION = [
    ("user", "complete", "Why are there tides?"),
    ("assistant", "complete", "The moon [1], and spring tides at new moon [3]."),
]
#: u1's chat: "shared" is u2's own card, shared with u1; "bore" is public. No answer cites either.
CARDS = {**CARDS_OF_CHAT, "bore": Card("Tidal bores", "A tidal bore runs up the Severn.", "u2", visibility="public")}


def test_a_continued_chat_lists_the_cited_cards_only_and_the_source_stays_its_owners(db):
    source_ids = make_cited_chat(db, CONVERSATION, cards=CARDS)  # published
    db.collection(CHAT_VIEWERS).document(chat_viewer_id("src", "u2")).set(ChatViewer("src", "u1", "u2").to_dict())
    new_id = continuation.continue_chat(db, "u2", "src", None, 0.5, AIAccess(may_use_ai=True))

    assert get_chat(db, "u2", {"chat_id": new_id})["citations"] == {"3": "open"}
    # the owner reads every card behind their chat, as chat_private shows them
    assert get_chat(db, "u1", {"chat_id": "src"})["citations"] == {str(n): c for n, c in enumerate(source_ids, 1)}
    for reader in ("u2", "u3"):  # a viewer, a visitor of the published chat: not theirs
        with pytest.raises(NotFound):
            get_chat(db, reader, {"chat_id": "src"})
    db.collection(CHATS).document("src").update({"published": False})
    with pytest.raises(NotFound):
        get_chat(db, "u2", {"chat_id": "src"})
