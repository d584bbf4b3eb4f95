"""Bring your own key, on the real Firestore emulator: a user's API key is
stored sealed (AES-GCM), shown back as its last 4 characters only, replaced
and deleted; it stands in for the AI grant and the daily cap on its provider."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from cryptography.exceptions import InvalidTag

from cardchat.access import own_keys, ratelimit
from cardchat.access.permissions import AIAccess, ai_access
from cardchat.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from cardchat.llm import keycrypt
from cardchat.parsing import requests
from cardchat.schema.accounts import USER_API_KEYS, RateLimit, TokenReservation
from cardchat.schema.documents import USERS, UserDoc

ANTHROPIC = "sk-ant-api03-OWNKEY0123456789abcdefghijklmnopqrstuvwxyzWXYZ"
OPENAI = "sk-proj-OWNKEY0123456789abcdefghijklmnopqrstuv9876"
GEMINI = "AIzaSyOWNKEY0123456789abcdefghijklmnopq"
SEALING_KEY = base64.b64encode(bytes(range(32))).decode()
NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def sealing(monkeypatch):
    monkeypatch.setenv(keycrypt.KEY_ENV, SEALING_KEY)


def test_a_key_of_each_provider_has_its_shape_and_a_refusal_never_repeats_it():
    assert set(requests.API_KEY_SHAPES) == {"anthropic", "openai", "gemini", "openai_compatible"}
    for provider, key in (("anthropic", ANTHROPIC), ("openai", OPENAI), ("gemini", GEMINI)):
        assert requests.api_key({"provider": provider, "key": f"  {key}\n"}) == (provider, key, None)
    wrong = [
        ("openai", ANTHROPIC),
        ("anthropic", OPENAI),
        ("gemini", GEMINI[:-1]),
        ("anthropic", "sk-ant-short"),
        ("gemini", GEMINI + " extra"),
        ("openai", None),
    ]
    for provider, key in wrong:
        with pytest.raises(InvalidArgument, match=r"^key: does not look like") as err:
            requests.api_key({"provider": provider, "key": key})
        assert str(key) not in err.value.message and "OWNKEY" not in err.value.message
    for provider in ("offline", "", None, "Anthropic"):
        with pytest.raises(InvalidArgument, match=r"^provider:"):
            requests.api_key({"provider": provider, "key": ANTHROPIC})


def test_an_endpoint_key_comes_with_its_base_url_and_no_other_key_takes_one():
    data = {"provider": "openai_compatible", "key": " any-word ", "base_url": " https://llm.example.com/v1 "}
    assert requests.api_key(data) == ("openai_compatible", "any-word", "https://llm.example.com/v1")
    for missing in (None, "", "   ", 5):
        with pytest.raises(InvalidArgument, match=r"^base_url: required"):
            requests.api_key({**data, "base_url": missing})
    with pytest.raises(InvalidArgument, match=r"^base_url: only for"):
        requests.api_key({"provider": "anthropic", "key": ANTHROPIC, "base_url": "https://llm.example.com/v1"})
    with pytest.raises(InvalidArgument, match=r"^key:"):
        requests.api_key({**data, "key": "two words"})


@pytest.mark.emulator
def test_a_key_is_stored_sealed_shown_by_its_last_four_replaced_and_deleted(db):
    shown = own_keys.set_key(db, "u1", "anthropic", ANTHROPIC, NOW)
    assert shown == {"provider": "anthropic", "last4": "WXYZ", "updated": NOW.isoformat()}
    stored = db.collection(USER_API_KEYS).document("u1").get().to_dict()
    record = stored["keys"]["anthropic"]
    assert set(record) == {"ciphertext", "nonce", "last4", "updated"}
    assert "OWNKEY" not in repr(stored) and b"OWNKEY" not in bytes(record["ciphertext"])
    assert own_keys.key_for(db, "u1", "anthropic") == ANTHROPIC
    assert own_keys.key_for(db, "u1", "openai") is None and own_keys.key_for(db, "u2", "anthropic") is None

    own_keys.set_key(db, "u1", "gemini", GEMINI, NOW)
    own_keys.set_key(db, "u1", "anthropic", ANTHROPIC[:-4] + "ABCD", NOW)  # replaced
    assert [(k["provider"], k["last4"]) for k in own_keys.list_keys(db, "u1")] == [
        ("anthropic", "ABCD"),
        ("gemini", "nopq"),
    ]
    assert own_keys.providers_of(db, "u1") == {"anthropic", "gemini"}
    own_keys.delete_key(db, "u1", "anthropic")
    own_keys.delete_key(db, "u1", "openai")  # none held: no error
    own_keys.delete_key(db, "nobody", "openai")
    assert [k["provider"] for k in own_keys.list_keys(db, "u1")] == ["gemini"]


@pytest.mark.emulator
def test_a_sealed_key_opens_only_for_its_user_and_provider_and_under_its_sealing_key(db, monkeypatch):
    own_keys.set_key(db, "u1", "anthropic", ANTHROPIC, NOW)
    record = db.collection(USER_API_KEYS).document("u1").get().to_dict()["keys"]["anthropic"]
    db.collection(USER_API_KEYS).document("u2").set({"keys": {"anthropic": record, "openai": record}})
    for uid, provider in (("u2", "anthropic"), ("u2", "openai")):
        with pytest.raises(InvalidTag):
            own_keys.key_for(db, uid, provider)
    monkeypatch.setenv(keycrypt.KEY_ENV, base64.b64encode(bytes(32)).decode())
    with pytest.raises(InvalidTag):
        own_keys.key_for(db, "u1", "anthropic")


@pytest.mark.emulator
def test_without_a_sealing_key_nothing_is_stored_and_the_refusal_names_no_secret(db, monkeypatch):
    for value in ("", "not base64!", base64.b64encode(b"short").decode()):
        monkeypatch.setenv(keycrypt.KEY_ENV, value)
        with pytest.raises(FailedPrecondition, match="not enabled") as err:
            own_keys.set_key(db, "u1", "anthropic", ANTHROPIC)
        assert "OWNKEY" not in err.value.message and (not value or value not in err.value.message)
    assert not db.collection(USER_API_KEYS).document("u1").get().exists


@pytest.mark.emulator
def test_an_own_key_stands_in_for_the_ai_grant_and_the_daily_cap_on_its_provider_only(db, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    own_keys.set_key(db, "u1", "anthropic", ANTHROPIC, NOW)
    db.collection(USERS).document("u1").set(UserDoc(may_use_ai=False).to_dict())
    access = ai_access(db, "u1")
    assert access == AIAccess(may_use_ai=False, own_keys=frozenset({"anthropic"}))
    assert access.admit("claude-sonnet-4-6").own_key is True
    for model in ("gpt-4.1", "offline-extractive", None):
        with pytest.raises(PermissionDenied, match="own API key"):
            access.admit(model)
    assert AIAccess(may_use_ai=True).admit("claude-sonnet-4-6").own_key is False


def test_on_an_own_key_the_minute_still_counts_but_the_day_is_neither_capped_nor_reserved():
    spent = RateLimit(day=NOW.date().isoformat(), day_tokens=2_000_000)
    own = ratelimit.Limits(per_minute=2).on_own_key()
    hold = TokenReservation(message="m1", attempt=1, tokens=50_000, created=NOW)
    state = ratelimit.admit(spent, NOW, own, hold)
    assert state.reservations == [] and state.day_tokens == 2_000_000 and len(state.recent) == 1
    state = ratelimit.admit(state, NOW, own, hold)
    with pytest.raises(ratelimit.ResourceExhausted, match="per minute"):
        ratelimit.admit(state, NOW, own, hold)
    with pytest.raises(ratelimit.ResourceExhausted, match="Daily limit"):
        ratelimit.admit(spent, NOW, ratelimit.Limits(per_minute=2), hold)
