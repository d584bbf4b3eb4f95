"""Rate limits: the pure window and reservation arithmetic, then the
transactional document on the real Firestore emulator."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from cardchat.access.ratelimit import HELD_RETRY_S, HOLD_TTL, Limits, admit, charge, charged, held, reconcile, settle
from cardchat.errors import ResourceExhausted
from cardchat.repo import ratelimit as repo
from cardchat.schema.accounts import RateLimit, TokenReservation
from cardchat.schema.documents import RATE_LIMITS

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


def hold(message: str, tokens: int, attempt: int = 1) -> TokenReservation:
    return TokenReservation(message=message, attempt=attempt, tokens=tokens, created=T0)


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
    state = charged(RateLimit(), 300, T0)
    state = charged(state, 250, T0 + timedelta(hours=1))
    assert state.day == "2026-03-01" and state.day_tokens == 550
    with pytest.raises(ResourceExhausted) as raised:
        admit(state, T0 + timedelta(hours=2), limits, hold("m", 10))
    assert raised.value.retry_after == pytest.approx(10 * 3600)
    assert "midnight UTC" in raised.value.message
    next_day = admit(state, T0 + timedelta(hours=13), limits, hold("m", 10))
    assert next_day.day == "2026-03-02" and next_day.day_tokens == 0 and held(next_day) == 10


def test_an_answer_still_being_written_holds_its_bound_against_the_cap():
    """The issue's case: ten 1M-token chats a minute all passed a 2M cap."""
    limits = Limits()  # 10 a minute, 2,000,000 tokens a day
    state = admit(RateLimit(), T0, limits, hold("first", 1_032_000))
    with pytest.raises(ResourceExhausted) as raised:
        admit(state, T0 + timedelta(seconds=1), limits, hold("second", 1_032_000))
    assert raised.value.retry_after == HELD_RETRY_S and "still being written" in raised.value.message
    # the first answer ends having used less than its bound: the rest is free again
    state = settle(state, "first", 1, 400_000, T0 + timedelta(seconds=20))
    assert state.day_tokens == 400_000 and state.reservations == []
    state = admit(state, T0 + timedelta(seconds=21), limits, hold("second", 1_032_000))
    assert held(state) == 1_032_000


def test_settling_is_exactly_once_and_ignores_what_it_did_not_reserve():
    state = admit(RateLimit(), T0, Limits(), hold("m", 5_000))
    once = settle(state, "m", 1, 1_200, T0 + timedelta(seconds=5))
    twice = settle(once, "m", 1, 1_200, T0 + timedelta(seconds=6))
    assert once.day_tokens == twice.day_tokens == 1_200 and twice.reservations == []
    assert settle(once, "m", 2, 999, T0).day_tokens == 1_200  # another attempt's run
    assert settle(once, "other", 1, 999, T0).day_tokens == 1_200


def test_a_retry_replaces_an_untaken_reservation_and_leaves_a_taken_one_to_its_run():
    limits = Limits(per_minute=100, daily_tokens=10_000)
    state = admit(RateLimit(), T0, limits, hold("m", 3_000))
    # the stub was never taken (attempt 1 again): its reservation is replaced, not added
    state = admit(state, T0 + timedelta(minutes=3), limits, hold("m", 3_000))
    assert held(state) == 3_000
    # taken once and stalled: attempt 2 is reserved beside attempt 1, which its run may still settle
    state = admit(state, T0 + timedelta(minutes=4), limits, hold("m", 3_000, attempt=2))
    assert sorted(r.attempt for r in state.reservations) == [1, 2]
    state = settle(state, "m", 1, 700, T0 + timedelta(minutes=5))
    assert state.day_tokens == 700 and [r.attempt for r in state.reservations] == [2]


def test_a_reservation_nobody_settles_is_charged_in_full_when_it_expires():
    state = admit(RateLimit(), T0, Limits(), hold("dead", 8_000))
    later = T0 + HOLD_TTL
    after = charged(state, 0, later)
    assert after.reservations == [] and after.day_tokens == 8_000
    assert settle(state, "dead", 1, 100, later).day_tokens == 8_000  # too late to settle for less


def test_reservations_carry_over_midnight_and_count_for_the_day_they_settle_in():
    limits = Limits(per_minute=100, daily_tokens=10_000)
    late = T0.replace(hour=23, minute=59)
    state = admit(charged(RateLimit(), 9_000, late), late, limits, hold("m", 1_000))
    midnight = late + timedelta(minutes=2)
    with pytest.raises(ResourceExhausted, match="still being written"):
        admit(state, midnight, limits, hold("n", 9_500))  # the new day, but m still holds 1,000
    state = settle(state, "m", 1, 600, midnight)
    assert state.day == "2026-03-02" and state.day_tokens == 600


def test_a_chat_bigger_than_the_cap_runs_alone_on_a_fresh_day():
    limits = Limits(per_minute=100, daily_tokens=1_000)
    state = admit(RateLimit(), T0, limits, hold("big", 5_000))
    assert held(state) == 1_000
    with pytest.raises(ResourceExhausted):
        admit(state, T0, limits, hold("small", 1))


def test_limits_come_from_the_environment():
    assert Limits.from_env({}) == Limits(10, 2_000_000)
    assert Limits.from_env({"CARDCHAT_RATE_PER_MINUTE": "3", "CARDCHAT_DAILY_TOKENS": "99"}) == Limits(3, 99)
    with pytest.raises(ValueError, match="CARDCHAT_RATE_PER_MINUTE"):
        Limits.from_env({"CARDCHAT_RATE_PER_MINUTE": "ten"})


@pytest.mark.emulator
def test_reservations_settlements_and_charges_persist(db):
    repo.update(db, "u1", lambda s: admit(s, T0, Limits(), hold("m", 4_000)))
    stored = repo.get(db, "u1")
    assert stored.reservations == [hold("m", 4_000)] and len(stored.recent) == 1
    reconcile(db, "u1", "m", 1, 1_500, T0 + timedelta(seconds=9))
    reconcile(db, "u1", "m", 1, 1_500, T0 + timedelta(seconds=9))  # a repeat changes nothing
    charge(db, "u1", 80, T0 + timedelta(seconds=10))  # a title call
    stored = repo.get(db, "u1")
    assert stored.day_tokens == 1_580 and stored.reservations == []
    raw = db.collection(RATE_LIMITS).document("u1").get().to_dict()
    assert raw["reservations"] == [] and raw["day"] == "2026-03-01"


@pytest.mark.emulator
def test_two_racing_admissions_against_the_cap_admit_exactly_one(db):
    limits = Limits(per_minute=10, daily_tokens=10_000)
    outcomes: list[str] = []

    def send(i: int) -> None:
        try:
            repo.update(db, "u1", lambda s: admit(s, T0 + timedelta(milliseconds=i), limits, hold(f"m{i}", 6_000)))
            outcomes.append("ok")
        except ResourceExhausted:
            outcomes.append("refused")

    threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok", "refused"]
    stored = repo.get(db, "u1")
    assert len(stored.recent) == 1 and held(stored) == 6_000
