"""What a visitor of a published chat learns of its cards (Chat.public_citations), on the
emulator: the numbers a complete answer cites whose card is public, added by that answer's
final write, and nothing of a card packed but uncited, however it entered the background
(the chat's creation, a follow-up, a pin, a branch, a continuation). A card made private
since leaves the map at the next answer's re-check."""

from __future__ import annotations

import pytest

from cardchat.access.permissions import AIAccess, grant_ai
from cardchat.chat import branch as branches
from cardchat.chat import continuation, pins
from cardchat.chat.turns import post_message
from cardchat.generation.engine import generate
from cardchat.schema.documents import CARDS, CHAT_PRIVATE, CHATS, Card
from chat_support import make_chat
from engine_support import CLAUDE, anthropic_wire, quick
from provider_wire import anthropic_text

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "quick"]  # fixtures, used by name

#: An answer that cites no card: the chat starts with no link for visitors.
UNCITED = [("user", "complete", "Why are there tides?"), ("assistant", "complete", "Nobody knows.")]
#: Cards of chat_support.CARDS_OF_CHAT by number: [1] own, [2] shared with u1, [3] public,
#: [4] own, [5] public.
SPRING = ("user", "complete", "And spring tides?")


@pytest.fixture(autouse=True)
def may_use_ai(db) -> None:
    grant_ai(db, "u1")  # the answers run on the deployment's key (the wire's)


def links(db, chat_id: str) -> dict[str, str]:
    """What every reader of the chat, a visitor of its published link included, reads of its cards."""
    return db.collection(CHATS).document(chat_id).get().to_dict()["public_citations"]


def answer(db, wire, chat_id: str, question: str, said: str) -> None:
    wire.responses.append(anthropic_text(said))
    assert generate(db, post_message(db, "u1", chat_id, question)) == "complete"


def test_an_answer_links_the_public_cards_it_cites_and_no_other(db, anthropic_wire):
    make_chat(db, UNCITED, model=CLAUDE)
    assert links(db, "src") == {}

    answer(db, anthropic_wire, "src", "And spring tides?", "The moon [1], the gate [2] and spring tides [3].")
    assert links(db, "src") == {"3": "open"}  # [5] is public and packed, but no answer cites it

    answer(db, anthropic_wire, "src", "Where are they listed?", "In tide tables [5].")
    assert links(db, "src") == {"3": "open", "5": "open-too"}


def test_a_card_made_private_leaves_the_links_at_the_next_answer(db, anthropic_wire):
    make_chat(db, UNCITED + [SPRING, ("assistant", "complete", "Spring tides [3], in tables [5].")], model=CLAUDE)
    assert links(db, "src") == {"3": "open", "5": "open-too"}
    db.collection(CARDS).document("open").update({"visibility": "private"})

    answer(db, anthropic_wire, "src", "Anything else?", "No.")
    assert links(db, "src") == {"5": "open-too"}


def test_a_pinned_public_card_is_linked_only_once_an_answer_cites_it(db, anthropic_wire):
    make_chat(db, UNCITED, model=CLAUDE)
    db.collection(CARDS).document("pinned").set(
        Card("Lunar month", "A lunar month is 29.5 days.", "u2", visibility="public").to_dict()
    )
    pins.choose(db, "u1", "src", "pinned", "pin")

    answer(db, anthropic_wire, "src", "How long is a month?", "About a month.")
    ids = db.collection(CHAT_PRIVATE).document("src").get().get("card_ids")
    assert "pinned" in ids and links(db, "src") == {}
    n = ids.index("pinned") + 1

    answer(db, anthropic_wire, "src", "Exactly?", f"29.5 days [{n}].")
    assert links(db, "src") == {str(n): "pinned"}


def test_a_branch_links_what_its_copied_answers_cite(db):
    make_chat(
        db,
        [
            ("user", "complete", "Why are there tides?"),
            ("assistant", "complete", "The moon [1], and spring tides [3]."),
            SPRING,
            ("assistant", "complete", "In tide tables [5]."),
        ],
    )
    assert links(db, "src") == {"3": "open", "5": "open-too"}

    branch = branches.branch_chat(db, "u1", "src", 2, "And neap tides?")  # [5]'s answer is not copied

    assert links(db, branch) == {"3": "open"}


def test_a_continuation_links_what_its_copied_answers_cite(db):
    make_chat(db, [("user", "complete", "Why are there tides?"), ("assistant", "complete", "Spring tides [3].")])

    new_id = continuation.continue_chat(db, "u3", "src", None, 0.5, AIAccess(may_use_ai=True))

    # only what a copied answer cites is packed again (chat/continuation.py): [5] stays behind with the source
    assert db.collection(CHAT_PRIVATE).document(new_id).get().get("card_ids") == ["", "", "open"]
    assert links(db, new_id) == {"3": "open"}
