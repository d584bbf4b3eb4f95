"""The background's size stays with the chat's owner, on the emulator: a complete answer's
message, which every reader of the chat reads, keeps only its output tokens; the prompt's counts
and the cost, which grow with the hidden background, are in answer_usage/{message id}, written by
the answer's final transaction and deleted with the chat."""

from __future__ import annotations

import pytest

from cardchat.chat.create import delete_chat
from cardchat.generation.engine import generate
from cardchat.llm.models import cost_usd
from cardchat.schema.accounts import ANSWER_USAGE, USAGE_DAILY
from engine_support import CLAUDE, SECRET_BACKGROUND, anthropic_wire, make_chat, message
from provider_wire import sse

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire"]  # a fixture, used by name


def test_a_complete_answer_tells_its_readers_nothing_of_the_backgrounds_size(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    anthropic_wire.responses = [sse("anthropic_stream.sse")]
    assert generate(db, stub) == "complete"

    assert message(db, stub)["usage"] == {"output_tokens": 9}  # what every reader of the chat reads
    owners = db.collection(ANSWER_USAGE).document(stub).get().to_dict()
    assert (owners["owner"], owners["chat"]) == ("u1", "chat1")
    assert owners["usage"] == {
        "input_tokens": 1225,
        "output_tokens": 9,
        "cached_input_tokens": 0,
        "cache_write_tokens": 1200,
        "estimated": False,  # the provider's count
    }
    assert owners["cost_usd"] == cost_usd(CLAUDE, 1225, 9, 0, 1200) > 0
    (day,) = [d.to_dict() for d in db.collection(USAGE_DAILY).stream()]
    assert (day["answers"], day["input_tokens"], day["output_tokens"]) == (
        1,
        1225,
        9,
    )  # the owner's day still counts it

    delete_chat(db, "u1", "chat1")
    assert not db.collection(ANSWER_USAGE).document(stub).get().exists
