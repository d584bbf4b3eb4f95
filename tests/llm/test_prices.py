"""The dated price table and the cost of one answer."""

from __future__ import annotations

import re

import pytest

from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID, PRICES, cost_usd


def test_every_model_has_exactly_one_dated_price_and_only_the_offline_answerer_is_free():
    assert set(PRICES) == set(MODELS)
    for model_id, price in PRICES.items():
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", price.as_of), model_id
        free = price.input == 0 and price.output == 0
        assert free is (model_id == OFFLINE_MODEL_ID), model_id


def test_the_offline_answerer_costs_nothing():
    assert cost_usd(OFFLINE_MODEL_ID, 50_000, 2_000) == 0.0


def test_plain_input_and_output_at_their_prices():
    # gpt-4.1: $2 in, $8 out per million tokens
    assert cost_usd("gpt-4.1", 1_000_000, 0) == pytest.approx(2.0)
    assert cost_usd("gpt-4.1", 0, 1_000_000) == pytest.approx(8.0)
    assert cost_usd("gpt-4.1", 1_187, 8) == pytest.approx((1_187 * 2.0 + 8 * 8.0) / 1e6)


def test_cached_input_is_billed_at_the_cached_price():
    # OpenAI's prompt_tokens includes cached_tokens: 1,024 of 1,187 at $0.50, the rest at $2
    expected = (163 * 2.0 + 1_024 * 0.50 + 8 * 8.0) / 1e6
    assert cost_usd("gpt-4.1", 1_187, 8, cached_input_tokens=1_024) == pytest.approx(expected)
    assert cost_usd("gpt-4.1", 1_187, 8, cached_input_tokens=1_024) < cost_usd("gpt-4.1", 1_187, 8)


def test_anthropic_cache_writes_and_reads_have_their_own_prices():
    # Sonnet: $3 in, $3.75 cache write, $0.30 cache read, $15 out
    expected = (25 * 3.0 + 1_200 * 3.75 + 0 * 0.30 + 9 * 15.0) / 1e6
    assert cost_usd("claude-sonnet-4-6", 1_225, 9, cache_write_tokens=1_200) == pytest.approx(expected)
    follow_up = (25 * 3.0 + 1_200 * 0.30 + 9 * 15.0) / 1e6
    assert cost_usd("claude-sonnet-4-6", 1_225, 9, cached_input_tokens=1_200) == pytest.approx(follow_up)


def test_a_long_gemini_pro_prompt_is_billed_at_the_long_prompt_price():
    assert cost_usd("gemini-2.5-pro", 200_000, 1_000) == pytest.approx((200_000 * 1.25 + 1_000 * 10.0) / 1e6)
    assert cost_usd("gemini-2.5-pro", 200_001, 1_000) == pytest.approx((200_001 * 2.50 + 1_000 * 15.0) / 1e6)


def test_a_model_without_a_price_costs_unknown_not_nothing_and_cached_counts_never_go_negative():
    assert cost_usd("no-such-model", 10, 10) is None
    assert (cost_usd("gpt-4.1", 100, 0, cached_input_tokens=500) or 0) >= 0
