"""An answer's `citation_checks`, written with its final status on the real emulator: one
verdict per (claim, cited [n]), the claims counted as the uncited-claim rule splits them, for
a keyed model and for the offline answerer alike."""

from __future__ import annotations

import pytest

from cardchat.generation import claims
from cardchat.generation.engine import generate
from cardchat.schema.documents import USERS, UserDoc
from cardchat.schema.messages import ChatMessage
from chat_support import write_chat
from engine_support import (
    CLAUDE,
    TIDES,
    anthropic_wire,
    ask_tides_and_bread,
    message,
    quick,
    store_embedded,
    tide_notes,
)
from provider_wire import anthropic_text

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "quick"]  # fixtures, used by name


def test_a_keyed_answer_carries_a_verdict_per_cited_claim_and_card(db, anthropic_wire):
    anthropic_wire.responses = [
        anthropic_text(
            "Tides rise and fall twice a day as the moon pulls the sea [1].\n\n",
            "In short:\n\n",  # no claim: not counted
            "- Bakers say bread is best eaten on the day it is baked.\n",  # an uncited claim: counted
            "- Tides rise and fall three times a day [2][4]. Sourdough needs a lively starter and a hot oven [4].\n",
        )
    ]
    stub = ask_tides_and_bread(db, "keyed", TIDES, CLAUDE)
    assert generate(db, stub) == "complete"
    assert message(db, stub)["citation_checks"] == [
        {"sentence": 0, "n": 1, "verdict": "supported"},
        {"sentence": 2, "n": 2, "verdict": "weak"},
        {"sentence": 2, "n": 4, "verdict": "unsupported"},
        {"sentence": 3, "n": 4, "verdict": "supported"},
    ]


def test_the_offline_answer_has_each_of_its_citations_checked(db):
    stub = ask_tides_and_bread(db, "offline", TIDES)
    assert generate(db, stub) == "complete"
    msg = message(db, stub)
    said = [s for b in claims.blocks(msg["content"]) for s in claims.sentences(b) if s.claim]
    cited = [i for i, s in enumerate(said) if s.cited]
    assert cited and sorted({c["sentence"] for c in msg["citation_checks"]}) == cited
    assert {c["verdict"] for c in msg["citation_checks"]} == {"supported"}  # it quotes the cards it cites


def test_an_answer_citing_nothing_has_no_checks(db, anthropic_wire):
    anthropic_wire.responses = [anthropic_text("The cards say nothing about that, as far as I can tell.")]
    stub = ask_tides_and_bread(db, "none", TIDES, CLAUDE)
    assert generate(db, stub) == "complete"
    assert message(db, stub)["citation_checks"] == []


def test_checks_that_fail_leave_the_answer_complete_with_none_and_log_no_background(db, anthropic_wire, caplog):
    cards = tide_notes("u1", 1)
    store_embedded(db, cards)
    hidden = "Launch notes: the launch code is written on the blue whiteboard in room 4."  # not in card format
    stub = "broken-m1"
    messages = [
        ("broken-m0", ChatMessage(chat="broken", message_index=0, role="user", content="Tides?", status="complete")),
        (stub, ChatMessage(chat="broken", message_index=1, role="assistant", content="", status="ready", model=CLAUDE)),
    ]
    write_chat(db, "broken", messages, "u1", CLAUDE, 20, hidden, list(cards))
    db.collection(USERS).document("u1").set(UserDoc(may_use_ai=True).to_dict(), merge=True)
    anthropic_wire.responses = [anthropic_text("Tides rise and fall twice a day as the moon pulls the sea [1].")]
    assert generate(db, stub) == "complete"
    msg = message(db, stub)
    assert (msg["status"], msg["sources"], msg["citation_checks"]) == ("complete", [1], None)
    assert "failed" in caplog.text and "whiteboard" not in caplog.text
