"""Pins and exclusions applied to a background (retrieval/pinning.repin): an excluded card's block
leaves, a pinned one comes in under its number, and cards not pinned make room, latest first."""

from __future__ import annotations

from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.llm.tokens import count_tokens
from cardchat.retrieval.background import card_numbers, fit_background, parse_background
from cardchat.retrieval.pinning import Pinned, repin
from cardchat.schema.documents import Card

TOKENIZER = MODELS[OFFLINE_MODEL_ID].tokenizer
CARDS = {f"c{i}": Card(f"Card {i}", f"Body of card {i}, about topic {i}. " * 3, "u1") for i in range(10)}
PIN = Card("Pinned note", "The pinned note says the gate opens at dawn. " * 3, "u1")


def background(ids: list[str]):
    return fit_background([(c, CARDS[c]) for c in ids], 100_000, TOKENIZER)


def test_an_excluded_card_leaves_and_the_others_keep_their_numbers():
    bg = background(["c0", "c1", "c2"])
    text, tokens = repin(bg.text, {2}, set(), [], 100_000, TOKENIZER)
    assert card_numbers(text) == [1, 3]
    assert tokens == count_tokens([text], TOKENIZER)[0] < bg.tokens


def test_a_pinned_card_comes_in_under_its_number_when_there_is_room():
    bg = background(["c0", "c1"])
    text, _ = repin(bg.text, set(), set(), [Pinned(7, PIN)], 100_000, TOKENIZER)
    assert card_numbers(text) == [1, 2, 7]
    assert parse_background(text)[-1][1] == "Pinned note"
    assert text.startswith(bg.text)


def test_cards_not_pinned_make_room_for_a_pin_highest_number_first():
    bg = background(["c0", "c1", "c2", "c3"])
    text, tokens = repin(bg.text, set(), {4}, [Pinned(5, PIN)], bg.tokens, TOKENIZER)
    # [4] is pinned too: [3] leaves first, then [2], until the pin fits the limit
    assert 4 in card_numbers(text) and 5 in card_numbers(text) and 1 in card_numbers(text)
    assert 3 not in card_numbers(text)
    assert tokens <= bg.tokens


def test_a_pin_too_large_for_any_room_is_cut_short_and_one_with_no_room_stays_out():
    bg = background(["c0"])
    big = Pinned(2, Card("Big pin", "word " * 5_000, "u1"))
    text, tokens = repin(bg.text, set(), {1}, [big], bg.tokens + 200, TOKENIZER)
    assert card_numbers(text) == [1, 2] and 'truncated="true"' in text
    assert tokens <= bg.tokens + 200
    nothing, _ = repin(bg.text, set(), {1}, [big], bg.tokens, TOKENIZER)
    assert nothing == bg.text


def test_a_pinned_card_already_in_the_background_stays_where_it_is():
    bg = background(["c0", "c1"])
    text, _ = repin(bg.text, set(), set(), [Pinned(2, CARDS["c1"])], 100_000, TOKENIZER)
    assert text == bg.text
