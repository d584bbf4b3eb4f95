"""resolveViewers (a card's viewers by email), through the
real Functions, Auth and Firestore emulators: addresses to uids, the owner's
card's uids back to addresses, what bounds account enumeration (signed in,
the hourly budget spent before Auth is asked, only uids the caller found by
email named back), and what is never stored (an email)."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from conftest import CallError

from cardchat.access import card_viewers
from cardchat.schema.accounts import VIEWER_LOOKUPS, ViewerLookups
from cardchat.schema.documents import CARDS, Card, now

pytestmark = pytest.mark.functions


def _email() -> str:
    return f"v{uuid.uuid4().hex[:10]}@cardchat.test"


@pytest.fixture
def person(sign_up):
    """person() -> (uid, token, email) of a fresh account."""

    def make() -> tuple[str, str, str]:
        email = _email()
        uid, token = sign_up(email)
        return uid, token, email

    return make


def _card(db, owner: str, viewers: list[str]) -> str:
    card_id = f"card-{uuid.uuid4().hex[:8]}"
    db.collection(CARDS).document(card_id).set(Card("T", "B", owner, "private", viewers).to_dict())
    return card_id


def test_emails_become_uids_and_the_owners_card_names_them_back(call, app_db, person):
    owner, token, _ = person()
    bob, _, bob_email = person()
    carol, _, carol_email = person()
    nobody = _email()
    out = call("resolveViewers", {"emails": [f" {bob_email.upper()}", nobody, carol_email]}, token)
    assert out == {
        "viewers": [
            {"uid": bob, "email": bob_email, "display_name": ""},
            {"uid": carol, "email": carol_email, "display_name": ""},
        ],
        "unknown": [nobody],
    }
    card_id = _card(app_db, owner, [carol, bob])
    named = call("resolveViewers", {"card_id": card_id}, token)
    assert named == {
        "viewers": [
            {"uid": carol, "email": carol_email, "display_name": ""},
            {"uid": bob, "email": bob_email, "display_name": ""},
        ],
        "unknown": [],
    }
    stored = app_db.collection(VIEWER_LOOKUPS).document(owner).get().to_dict()
    assert sorted(stored["found"]) == sorted([bob, carol]) and stored["count"] == 3
    assert "@" not in json.dumps(stored, default=str)  # uids and a count: no address is stored


def test_a_uid_not_found_by_email_is_never_named(call, app_db, person):
    """A uid is no secret (public cards carry their owner's): writing one into
    your own card must not turn it into an address."""
    owner, token, _ = person()
    victim, _, victim_email = person()
    card_id = _card(app_db, owner, [victim])
    out = call("resolveViewers", {"card_id": card_id}, token)
    assert out["viewers"] == [{"uid": victim, "email": "", "display_name": ""}]
    assert victim_email not in json.dumps(out)


def test_another_owners_card_is_not_found(call, app_db, person):
    owner, _, _ = person()
    _, other_token, _ = person()
    card_id = _card(app_db, owner, [])
    for missing in (card_id, "no-such-card"):
        with pytest.raises(CallError) as e:
            call("resolveViewers", {"card_id": missing}, other_token)
        assert e.value.status == "NOT_FOUND"


def test_signed_in_callers_only(call, person):
    _, _, email = person()
    with pytest.raises(CallError) as e:
        call("resolveViewers", {"emails": [email]})
    assert e.value.status == "UNAUTHENTICATED"


def test_the_hourly_budget_is_spent_before_auth_is_asked(call, app_db, person):
    owner, token, _ = person()
    bob, _, bob_email = person()
    spent = card_viewers.LOOKUPS_PER_HOUR - 1
    app_db.collection(VIEWER_LOOKUPS).document(owner).set(ViewerLookups(now(), spent).to_dict())
    with pytest.raises(CallError) as e:
        call("resolveViewers", {"emails": [bob_email, _email()]}, token)
    assert e.value.status == "RESOURCE_EXHAUSTED" and e.value.details["retry_after"] > 0
    stored = app_db.collection(VIEWER_LOOKUPS).document(owner).get().to_dict()
    assert stored["count"] == spent and stored["found"] == []  # refused: nothing looked up, nothing spent
    assert call("resolveViewers", {"emails": [bob_email]}, token)["viewers"][0]["uid"] == bob


@pytest.mark.parametrize(
    "data, field",
    [
        ({}, "emails or card_id"),
        ({"emails": "a@b.c"}, "emails"),
        ({"emails": ["not an address"]}, "emails"),
        ({"emails": [f"p{i}@cardchat.test" for i in range(51)]}, "emails"),
        ({"card_id": "a/b"}, "card_id"),
    ],
)
def test_bad_requests_name_the_field_and_spend_nothing(call, app_db, person, data, field):
    owner, token, _ = person()
    with pytest.raises(CallError) as e:
        call("resolveViewers", data, token)
    assert e.value.status == "INVALID_ARGUMENT" and field in e.value.message
    assert not app_db.collection(VIEWER_LOOKUPS).document(owner).get().exists


def test_the_window_restarts_after_an_hour():
    start = now()
    full = ViewerLookups(start, card_viewers.LOOKUPS_PER_HOUR, ["u1"])
    with pytest.raises(Exception, match="an hour"):
        card_viewers.spend(full, 1, start + timedelta(minutes=59))
    later = card_viewers.spend(full, 3, start + card_viewers.WINDOW)
    assert (later.count, later.window_start, later.found) == (3, start + card_viewers.WINDOW, ["u1"])
