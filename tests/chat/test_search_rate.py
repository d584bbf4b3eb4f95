"""searchCards takes a slot of its user's search minute, like the calls that
make an answer take one of theirs; a malformed request spends none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import CallError

from cardchat.chat.card_search import search_cards
from cardchat.errors import ResourceExhausted
from cardchat.parsing import requests
from cardchat.schema.documents import RATE_LIMITS, RATE_WINDOWS, SEARCH_WINDOW

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def window(db, uid: str) -> list:
    snap = db.collection(RATE_LIMITS).document(uid).collection(RATE_WINDOWS).document(SEARCH_WINDOW).get()
    return list((snap.to_dict() or {}).get("recent") or []) if snap.exists else []


@pytest.mark.emulator
def test_searches_past_the_users_minute_are_refused_until_it_passes(db):
    req = requests.search_cards({"text": "tides"})
    for i in range(3):
        search_cards(db, "alice", req, now=T0 + timedelta(seconds=i), per_minute=3)
    with pytest.raises(ResourceExhausted) as e:
        search_cards(db, "alice", req, now=T0 + timedelta(seconds=10), per_minute=3)
    assert 49 <= e.value.retry_after <= 50 and "at most 3 a minute" in e.value.message
    assert len(window(db, "alice")) == 3  # the refusal wrote nothing
    search_cards(db, "bob", req, now=T0 + timedelta(seconds=10), per_minute=3)  # a minute of his own
    search_cards(db, "alice", req, now=T0 + timedelta(seconds=61), per_minute=3)


@pytest.mark.functions
def test_a_search_spends_one_slot_and_a_malformed_one_none(app_db, sign_up, call):
    uid, token = sign_up()
    for bad in ({}, {"text": "   "}, {"text": "q", "limit": 51}, {"text": "q", "scope": "all"}):
        with pytest.raises(CallError) as e:
            call("searchCards", bad, token)
        assert e.value.status == "INVALID_ARGUMENT"
    assert window(app_db, uid) == []
    call("searchCards", {"text": "tides"}, token)
    assert len(window(app_db, uid)) == 1


def test_the_search_rate_is_configurable():
    from cardchat.access import ratelimit

    assert ratelimit.window_limit(SEARCH_WINDOW, {}) == ratelimit.DEFAULT_SEARCHES_PER_MINUTE
    assert ratelimit.window_limit(SEARCH_WINDOW, {"CARDCHAT_SEARCH_RATE_PER_MINUTE": "5"}) == 5
    with pytest.raises(ValueError, match="CARDCHAT_SEARCH_RATE_PER_MINUTE"):
        ratelimit.window_limit(SEARCH_WINDOW, {"CARDCHAT_SEARCH_RATE_PER_MINUTE": "0"})
