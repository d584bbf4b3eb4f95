"""Which cards of a batch the card quotas let through (card_quota.gate), and how they are configured."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cardchat.embeddings.card_quota import CARD_LIMIT, WRITE_RATE, CardQuota, gate, minute_of


def test_new_cards_fill_the_room_left_and_held_ones_always_may_be_embedded_again():
    decided = gate(["a", "b", "held", "c"], {"held"}, vectors=8, written=0, quota=CardQuota(10, 100))
    assert decided.admitted == ["a", "b", "held"] and decided.skipped == {"c": CARD_LIMIT}


def test_the_minutes_writes_bound_every_card_new_or_held():
    decided = gate(["held", "a", "b"], {"held"}, vectors=0, written=98, quota=CardQuota(10, 100))
    assert decided.admitted == ["held", "a"] and decided.skipped == {"b": WRITE_RATE}


def test_a_card_over_the_card_limit_spends_no_write():
    decided = gate(["a", "b", "c"], set(), vectors=1, written=0, quota=CardQuota(2, 2))
    assert decided.admitted == ["a"] and decided.skipped == {"b": CARD_LIMIT, "c": CARD_LIMIT}


def test_limits_come_from_the_environment():
    assert CardQuota.from_env({}) == CardQuota()
    env = {"CARDCHAT_MAX_CARDS_PER_USER": "5", "CARDCHAT_CARD_WRITES_PER_MINUTE": "7"}
    assert CardQuota.from_env(env) == CardQuota(5, 7)
    for name in env:
        with pytest.raises(ValueError, match=name):
            CardQuota.from_env({name: "0"})


def test_the_minute_bucket_is_utc():
    assert minute_of(datetime(2026, 5, 1, 12, 0, 59, tzinfo=UTC)) == "2026-05-01T12:00"
