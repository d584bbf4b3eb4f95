"""A pinned card never leaves the context to make room for a follow-up's cards
(generation/turn_context.plan_turn with `pinned`), nor when a retry takes out what its turn added."""

from __future__ import annotations

from cardchat.generation.turn_context import Ranked, plan_turn
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.retrieval.background import card_numbers, fit_background
from cardchat.schema.documents import Card

TOKENIZER = MODELS[OFFLINE_MODEL_ID].tokenizer
CARDS = {f"c{i}": Card(f"Card {i}", f"Body of card {i}, about topic {i}. " * 3, "u1") for i in range(10)}
ROOMY = 100_000


def ranked(ids: list[str]) -> Ranked:
    return Ranked(ids, CARDS, {c: 0.5 for c in ids})


def test_an_earlier_addition_that_is_pinned_stays_when_the_room_is_short():
    bg = fit_background([("c0", CARDS["c0"])], ROOMY, TOKENIZER)
    first = plan_turn(bg.text, bg.tokens, bg.card_ids, [], ranked(["c5", "c6"]), 3, ROOMY, 10_000, TOKENIZER)
    tight = plan_turn(
        first.text,
        first.tokens,
        first.card_ids,
        [first.turn],
        ranked(["c9"]),
        5,
        0,
        10_000,
        TOKENIZER,
        pinned=frozenset({"c5"}),
    )
    assert tight.turn.dropped == [3]  # c6 left for room; c5, pinned, did not
    assert 2 in card_numbers(tight.text)


def test_a_retry_keeps_a_pinned_card_its_turn_added():
    bg = fit_background([("c0", CARDS["c0"])], ROOMY, TOKENIZER)
    first = plan_turn(bg.text, bg.tokens, bg.card_ids, [], ranked(["c5"]), 3, ROOMY, 10_000, TOKENIZER)
    again = plan_turn(
        first.text,
        first.tokens,
        first.card_ids,
        [first.turn],
        ranked(["c7"]),
        3,
        ROOMY,
        10_000,
        TOKENIZER,
        pinned=frozenset({"c5"}),
    )
    assert sorted(card_numbers(again.text)) == [1, 2, 3]  # c5 stays as [2], c7 comes in as [3]
