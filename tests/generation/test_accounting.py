"""What an answer cost and how it went, recorded when its run finishes,
on the real emulator: the owner's answer_usage with its cost, the message's
output tokens, timings and uncited claims; the owner's daily aggregate, added to
in the finish transaction; one structured log line without content."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from cardchat.generation.accounting import LOG_EVENT
from cardchat.generation.engine import generate
from cardchat.llm.models import cost_usd
from cardchat.schema.accounts import USAGE_DAILY, usage_day_id
from cardchat.schema.documents import CARDS, Card
from engine_support import (
    CLAUDE,
    OFFLINE_ANSWER,
    SECRET_BACKGROUND,
    answer_usage,
    anthropic_wire,
    make_chat,
    message,
    quick,
)
from provider_wire import anthropic_text, sse

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "quick"]  # fixtures, used by name

NOON = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)


def day_doc(db, owner: str, model: str) -> dict | None:
    snap = db.collection(USAGE_DAILY).document(usage_day_id(owner, NOON.date().isoformat(), model)).get()
    return snap.to_dict() if snap.exists else None


def launch_notes(db) -> list[str]:
    """The card SECRET_BACKGROUND holds as [1], the owner's own: the background's card ids."""
    db.collection(CARDS).document("launch").set(
        Card("Launch notes", "The launch code is on the whiteboard.", "u1").to_dict()
    )
    return ["launch"]


def answer_lines(out: str) -> list[dict]:
    return [
        d
        for d in (json.loads(line) for line in out.splitlines() if line.startswith("{"))
        if d.get("event") == LOG_EVENT
    ]


def test_a_priced_answer_records_cost_timings_uncited_claims_and_its_day(db, anthropic_wire, capsys):
    anthropic_wire.responses = [sse("anthropic_stream.sse"), sse("anthropic_stream.sse")]
    card_ids = launch_notes(db)
    stub = make_chat(db, "paid", model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40, card_ids=card_ids)
    assert generate(db, stub, now=lambda: NOON) == "complete"

    msg, owners = message(db, stub), answer_usage(db, stub)
    # the wire's usage: 25 fresh input tokens, 1,200 written to the cache, 9 output
    assert owners["usage"] == {
        "input_tokens": 1225,
        "output_tokens": 9,
        "cached_input_tokens": 0,
        "cache_write_tokens": 1200,
        "estimated": False,  # the provider's count
    }
    assert owners["cost_usd"] == cost_usd(CLAUDE, 1225, 9, 0, 1200)
    assert owners["cost_usd"] == pytest.approx((25 * 3 + 1200 * 3.75 + 9 * 15) / 1e6)
    assert msg["usage"] == {"output_tokens": 9}
    assert 0 <= msg["timings"]["ttft"] <= msg["timings"]["total"]
    assert msg["uncited_claims"] == 0  # "Tides follow the moon [1]."
    assert msg["sources"] == [1]

    assert day_doc(db, "u1", CLAUDE) == {
        "owner": "u1",
        "day": "2026-03-14",
        "model": CLAUDE,
        "answers": 1,
        "input_tokens": 1225,
        "output_tokens": 9,
        "cost_usd": owners["cost_usd"],
    }
    second = make_chat(db, "paid2", model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40, card_ids=card_ids)
    assert generate(db, second, now=lambda: NOON) == "complete"
    day = day_doc(db, "u1", CLAUDE)
    assert (day["answers"], day["input_tokens"], day["output_tokens"]) == (2, 2450, 18)
    assert day["cost_usd"] == pytest.approx(2 * owners["cost_usd"])

    lines = answer_lines(capsys.readouterr().out)
    assert [line["message_id"] for line in lines] == [stub, second]
    first = lines[0]
    assert first["model"] == CLAUDE and first["status"] == "complete" and first["attempts"] == 1
    assert (first["input_tokens"], first["output_tokens"], first["uncited_claims"]) == (1225, 9, 0)
    assert first["cost_usd"] == owners["cost_usd"] and first["ttft_s"] == msg["timings"]["ttft"]
    logged = json.dumps(lines)
    assert "Tides follow" not in logged and "What do my cards say" not in logged and "whiteboard" not in logged


def test_the_offline_answer_costs_nothing_and_its_notes_are_not_claims(db, capsys):
    stub = make_chat(db, "free")  # no cards: the answerer says so, then its note
    assert generate(db, stub, now=lambda: NOON) == "complete"
    msg = message(db, stub)
    assert msg["content"] == OFFLINE_ANSWER
    owners = answer_usage(db, stub)
    assert owners["cost_usd"] == 0
    assert owners["usage"]["input_tokens"] > 0 and msg["usage"]["output_tokens"] > 0
    assert msg["uncited_claims"] == 0
    assert day_doc(db, "u1", msg["model"])["answers"] == 1


def test_claims_without_a_citation_are_counted_with_the_answer(db, anthropic_wire, capsys):
    anthropic_wire.responses = [
        anthropic_text(
            "Tides follow the moon [1]. ",
            "The sea is always cold in winter.\n\n",
            "- Harbours close at night\n",
            "- Gates open at dawn every day [2][0]",
        )
    ]
    stub = make_chat(
        db, "claims", model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40, card_ids=launch_notes(db)
    )
    assert generate(db, stub, now=lambda: NOON) == "complete"
    msg = message(db, stub)
    # [2] is beyond the one-card background and [0] names no card: neither cites
    assert (msg["uncited_claims"], msg["sources"]) == (3, [1])
    (line,) = answer_lines(capsys.readouterr().out)
    assert line["uncited_claims"] == 3


def test_a_failed_answer_is_logged_but_not_added_to_the_day(db, anthropic_wire, capsys):
    anthropic_wire.responses = [sse("anthropic_overloaded_midstream.sse")]
    stub = make_chat(db, "broken", model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    assert generate(db, stub, now=lambda: NOON) == "failed"
    assert day_doc(db, "u1", CLAUDE) is None
    (line,) = answer_lines(capsys.readouterr().out)
    assert line["status"] == "failed" and line["severity"] == "WARNING" and line["model"] == CLAUDE
    assert "Partial" not in json.dumps(line)
