"""Rate limits: the pure window arithmetic, then the transactional document
on the real Firestore emulator."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

from cardchat.errors import ResourceExhausted
from cardchat.ratelimit import Limits, add_tokens, admit, check_and_record, with_tokens
from cardchat.repo import ratelimit as repo
from cardchat.schema import RATE_LIMITS, RateLimit

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=timezone.utc)


def test_admits_up_to_the_per_minute_limit_then_names_the_wait():
    limits = Limits(per_minute=3, daily_tokens=1000)
    state = RateLimit()
    for s in (0, 10, 20):
        state = admit(state, T0 + timedelta(seconds=s), limits)
    with pytest.raises(ResourceExhausted) as raised:
        admit(state, T0 + timedelta(seconds=25), limits)
    # the message sent at T0 leaves the window at T0+60
    assert raised.value.retry_after == pytest.approx(35.0)
    assert "35 seconds" in raised.value.message
    # once it has left, one more fits
    state = admit(state, T0 + timedelta(seconds=60), limits)
    assert len(state.recent) == 3


def test_a_lowered_limit_waits_for_enough_old_messages_to_leave():
    state = RateLimit(recent=[T0 + timedelta(seconds=s) for s in (0, 5, 10, 15)])
    with pytest.raises(ResourceExhausted) as raised:
        admit(state, T0 + timedelta(seconds=20), Limits(per_minute=2))
    # 4 in the window, 2 allowed: the third oldest (T0+10) must leave
    assert raised.value.retry_after == pytest.approx(50.0)


def test_daily_tokens_block_until_midnight_utc_and_reset_the_next_day():
    limits = Limits(per_minute=100, daily_tokens=500)
    state = with_tokens(RateLimit(), 300, T0)
    state = with_tokens(state, 250, T0 + timedelta(hours=1))
    assert state.day == "2026-03-01" and state.day_tokens == 550
    with pytest.raises(ResourceExhausted) as raised:
        admit(state, T0 + timedelta(hours=2), limits)
    assert raised.value.retry_after == pytest.approx(10 * 3600)
    assert "midnight UTC" in raised.value.message
    next_day = admit(state, T0 + timedelta(hours=13), limits)
    assert next_day.day == "2026-03-02" and next_day.day_tokens == 0


def test_limits_come_from_the_environment():
    assert Limits.from_env({}) == Limits(10, 2_000_000)
    assert Limits.from_env({"CARDCHAT_RATE_PER_MINUTE": "3", "CARDCHAT_DAILY_TOKENS": "99"}) == Limits(3, 99)
    with pytest.raises(ValueError, match="CARDCHAT_RATE_PER_MINUTE"):
        Limits.from_env({"CARDCHAT_RATE_PER_MINUTE": "ten"})


@pytest.mark.emulator
def test_check_and_record_persists_and_refuses_with_retry_after(db, monkeypatch):
    monkeypatch.setenv("CARDCHAT_RATE_PER_MINUTE", "2")
    check_and_record(db, "u1", T0)
    check_and_record(db, "u1", T0 + timedelta(seconds=1))
    with pytest.raises(ResourceExhausted) as raised:
        check_and_record(db, "u1", T0 + timedelta(seconds=30))
    assert raised.value.retry_after == pytest.approx(30.0)
    stored = db.collection(RATE_LIMITS).document("u1").get().to_dict()
    assert len(stored["recent"]) == 2  # the refused message was not recorded
    check_and_record(db, "u2", T0 + timedelta(seconds=30))  # per user
    check_and_record(db, "u1", T0 + timedelta(seconds=61))


@pytest.mark.emulator
def test_tokens_add_up_and_exhaust_the_day(db, monkeypatch):
    monkeypatch.setenv("CARDCHAT_DAILY_TOKENS", "1000")
    check_and_record(db, "u1", T0)
    add_tokens(db, "u1", 600, T0)
    add_tokens(db, "u1", 500, T0 + timedelta(seconds=5))
    assert repo.get(db, "u1").day_tokens == 1100
    with pytest.raises(ResourceExhausted) as raised:
        check_and_record(db, "u1", T0 + timedelta(minutes=5))
    assert raised.value.retry_after == pytest.approx(12 * 3600 - 300)


@pytest.mark.emulator
def test_two_racing_messages_against_a_limit_of_one_admit_exactly_one(db, monkeypatch):
    monkeypatch.setenv("CARDCHAT_RATE_PER_MINUTE", "1")
    outcomes: list[str] = []

    def send(i: int) -> None:
        try:
            check_and_record(db, "u1", T0 + timedelta(milliseconds=i))
            outcomes.append("ok")
        except ResourceExhausted:
            outcomes.append("refused")

    threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok", "refused"]
    assert len(repo.get(db, "u1").recent) == 1
