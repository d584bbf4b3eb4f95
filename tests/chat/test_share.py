"""shareChat and what a viewer may do, through the real
Functions, Auth and Firestore emulators: share and unshare by email, unknown
addresses, non-owners, the 50-viewer cap, the owner as a no-op, a viewer
refused by every callable that writes, the author chip's name and toggle."""

from __future__ import annotations

import json
import os
import urllib.request
import uuid

import pytest
from conftest import CallError, _post
from google.cloud.firestore import FieldFilter
from test_endpoints import _rest_get

from cardchat.access import card_viewers
from cardchat.ids import chat_viewer_id
from cardchat.parsing.addresses import MAX_SHARE_EMAILS
from cardchat.schema.accounts import VIEWER_LOOKUPS
from cardchat.schema.documents import (
    CHAT_AUTHORS,
    CHAT_MESSAGES,
    CHAT_PRIVATE,
    CHAT_VIEWERS,
    CHATS,
    MAX_VIEWERS,
    USERS,
    UserDoc,
)
from chat_support import answered_chat

pytestmark = pytest.mark.functions


def _email() -> str:
    return f"s{uuid.uuid4().hex[:10]}@cardchat.test"


@pytest.fixture
def person(sign_up, app_db):
    """person(display_name=None) -> (uid, token, email) of a fresh account allowed to use the AI,
    so a refusal below is about the chat, never about AI access."""

    def make(display_name: str | None = None) -> tuple[str, str, str]:
        email = _email()
        uid, token = sign_up(email)
        if display_name:
            host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
            _post(
                f"http://{host}/identitytoolkit.googleapis.com/v1/accounts:update?key=demo-key",
                {"idToken": token, "displayName": display_name},
            )
        app_db.collection(USERS).document(uid).set(UserDoc(may_use_ai=True).to_dict())
        return uid, token, email

    return make


@pytest.fixture
def owned(app_db, person):
    """(owner uid, owner token, owner email, chat id): an answered chat, unpublished."""
    uid, token, email = person("Alice Owner")
    chat_id = answered_chat(app_db, f"c{uuid.uuid4().hex[:8]}", uid, "failed")
    return uid, token, email, chat_id


def _chat(db, chat_id: str) -> dict:
    return db.collection(CHATS).document(chat_id).get().to_dict()


def _viewers(db, chat_id: str) -> list[str]:
    """Whom the chat is shared with, as stored: one chat_viewers doc each, in the order added."""
    docs = [d.to_dict() for d in db.collection(CHAT_VIEWERS).where(filter=FieldFilter("chat", "==", chat_id)).stream()]
    return [d["viewer"] for d in sorted(docs, key=lambda d: d["added"])]


def test_share_and_unshare_by_email(call, app_db, owned, person):
    _, token, owner_email, chat_id = owned
    bob, bob_token, bob_email = person("Bob Viewer")
    carol, carol_token, carol_email = person()
    assert _rest_get(f"{CHATS}/{chat_id}", bob_token) == 403

    out = call("shareChat", {"chat_id": chat_id, "add": [bob_email.upper(), carol_email]}, token)
    assert out["viewers"] == [
        {"uid": bob, "email": bob_email, "display_name": "Bob Viewer"},
        {"uid": carol, "email": carol_email, "display_name": ""},
    ]
    assert _viewers(app_db, chat_id) == [bob, carol]
    stored = app_db.collection(CHAT_VIEWERS).document(chat_viewer_id(chat_id, bob)).get().to_dict()
    assert {k: stored[k] for k in ("chat", "owner", "viewer")} == {"chat": chat_id, "owner": owned[0], "viewer": bob}
    assert "@" not in json.dumps(stored, default=str)  # opaque ids, no emails
    assert "viewers" not in _chat(app_db, chat_id)  # visitors of a published chat read the chat
    author = app_db.collection(CHAT_AUTHORS).document(chat_id).get().to_dict()
    assert author == {"owner": owned[0], "name": "Alice Owner", "shown": False}
    assert owner_email not in json.dumps(author)

    # what a viewer reads: the chat and its messages, never the owner's data
    assert _rest_get(f"{CHATS}/{chat_id}", bob_token) == 200
    assert _rest_get(f"{CHAT_MESSAGES}/{chat_id}-a1", bob_token) == 200
    assert _rest_get(f"{CHAT_AUTHORS}/{chat_id}", bob_token) == 200
    assert _rest_get(f"{CHAT_PRIVATE}/{chat_id}", bob_token) == 403

    out = call("shareChat", {"chat_id": chat_id, "remove": [bob_email]}, token)
    assert [v["uid"] for v in out["viewers"]] == [carol]
    assert _viewers(app_db, chat_id) == [carol]
    assert _rest_get(f"{CHATS}/{chat_id}", bob_token) == 403
    assert _rest_get(f"{CHAT_MESSAGES}/{chat_id}-a1", bob_token) == 403
    assert _rest_get(f"{CHATS}/{chat_id}", carol_token) == 200

    # no add or remove: the current viewers, for the Share dialog
    assert call("shareChat", {"chat_id": chat_id}, token)["viewers"] == out["viewers"]


def test_an_unknown_address_is_not_found_by_name_and_changes_nothing(call, app_db, owned, person):
    _, token, _, chat_id = owned
    _, _, bob_email = person()
    nobody = _email()
    with pytest.raises(CallError) as e:
        call("shareChat", {"chat_id": chat_id, "add": [bob_email, nobody]}, token)
    assert e.value.status == "NOT_FOUND"
    assert nobody in e.value.message and bob_email not in e.value.message
    assert _viewers(app_db, chat_id) == []


def test_only_the_owner_may_share_and_no_one_else_learns_which_addresses_exist(call, app_db, owned, person):
    _, token, _, chat_id = owned
    _, viewer_token, viewer_email = person()
    call("shareChat", {"chat_id": chat_id, "add": [viewer_email]}, token)
    _, stranger_token, stranger_email = person()
    for caller in (viewer_token, stranger_token):
        for request in (
            {"chat_id": chat_id, "add": [stranger_email]},
            {"chat_id": chat_id, "remove": [viewer_email]},
            {"chat_id": chat_id, "add": [_email()]},  # unknown address: still PERMISSION_DENIED
            {"chat_id": chat_id},
        ):
            with pytest.raises(CallError) as e:
                call("shareChat", request, caller)
            assert e.value.status == "PERMISSION_DENIED", request
    with pytest.raises(CallError) as e:
        call("shareChat", {"chat_id": chat_id}, None)
    assert e.value.status == "UNAUTHENTICATED"
    with pytest.raises(CallError) as e:
        call("shareChat", {"chat_id": "no-such-chat"}, token)
    assert e.value.status == "NOT_FOUND"
    assert len(_viewers(app_db, chat_id)) == 1


def test_the_lookup_budget_is_spent_before_auth_is_asked(call, app_db, owned, person):
    """An owner's chat (a shape-valid own key is all it takes) must not turn
    shareChat into an oracle of who has an account: the hourly budget that
    resolveViewers spends bounds it too, so 250 unknown addresses are not all answered."""
    owner, token, _, chat_id = owned
    answers = []
    for _ in range(5):
        with pytest.raises(CallError) as e:
            call("shareChat", {"chat_id": chat_id, "add": [_email() for _ in range(MAX_SHARE_EMAILS)]}, token)
        answers.append(e.value.status)
    budget = card_viewers.LOOKUPS_PER_HOUR // MAX_SHARE_EMAILS
    assert answers == ["NOT_FOUND"] * budget + ["RESOURCE_EXHAUSTED"] * (5 - budget)
    assert app_db.collection(VIEWER_LOOKUPS).document(owner).get().get("count") == card_viewers.LOOKUPS_PER_HOUR
    # spent before Auth is asked: even a known address is refused now, and the chat is unchanged
    _, _, bob_email = person()
    with pytest.raises(CallError) as e:
        call("shareChat", {"chat_id": chat_id, "add": [bob_email]}, token)
    assert e.value.status == "RESOURCE_EXHAUSTED" and e.value.details["retry_after"] > 0
    assert _viewers(app_db, chat_id) == []
    # listing the viewers looks up no address: it spends nothing and is never refused
    assert call("shareChat", {"chat_id": chat_id}, token)["viewers"] == []


@pytest.mark.parametrize(
    "request_, field",
    [
        ({"add": "a@b.c"}, "add"),
        ({"add": ["not an address"]}, "add"),
        ({"remove": [7]}, "remove"),
        ({"add": ["x@y.z"], "remove": ["X@y.z"]}, "remove"),
        ({"add": [f"p{i}@cardchat.test" for i in range(MAX_VIEWERS + 1)]}, "add"),
        ({"show_author": "yes"}, "show_author"),
    ],
)
def test_bad_requests_name_the_field(call, owned, request_, field):
    _, token, _, chat_id = owned
    with pytest.raises(CallError) as e:
        call("shareChat", {"chat_id": chat_id, **request_}, token)
    assert e.value.status == "INVALID_ARGUMENT" and e.value.message.startswith(field)


def test_sharing_with_the_owner_is_a_no_op(call, app_db, owned):
    _, token, owner_email, chat_id = owned
    assert call("shareChat", {"chat_id": chat_id, "add": [owner_email]}, token)["viewers"] == []
    assert call("shareChat", {"chat_id": chat_id, "remove": [owner_email]}, token)["viewers"] == []
    assert _viewers(app_db, chat_id) == []


def test_at_most_fifty_viewers(call, app_db, owned, sign_up):
    _, token, _, chat_id = owned
    emails = [_email() for _ in range(MAX_VIEWERS + 1)]
    for email in emails:
        sign_up(email)
    assert len(call("shareChat", {"chat_id": chat_id, "add": emails[:MAX_VIEWERS]}, token)["viewers"]) == MAX_VIEWERS
    with pytest.raises(CallError) as e:
        call("shareChat", {"chat_id": chat_id, "add": emails[MAX_VIEWERS:]}, token)
    assert e.value.status == "FAILED_PRECONDITION" and str(MAX_VIEWERS) in e.value.message
    assert len(_viewers(app_db, chat_id)) == MAX_VIEWERS
    # swapping one for another in the same call stays within the cap
    out = call("shareChat", {"chat_id": chat_id, "add": emails[MAX_VIEWERS:], "remove": emails[:1]}, token)
    assert len(out["viewers"]) == MAX_VIEWERS and out["viewers"][-1]["email"] == emails[MAX_VIEWERS]


def test_a_viewer_is_refused_by_every_callable_that_writes(call, app_db, owned, person):
    _, token, _, chat_id = owned
    viewer, viewer_token, viewer_email = person()
    call("shareChat", {"chat_id": chat_id, "add": [viewer_email]}, token)
    refused = [
        ("postMessage", {"chat_id": chat_id, "content": "my turn?"}),
        ("retryMessage", {"message_id": f"{chat_id}-a1"}),  # failed: the owner could retry it
        ("branchChat", {"chat_id": chat_id, "message_index": 0, "content": "asked my way"}),
        ("deleteChat", {"chat_id": chat_id}),
        ("shareChat", {"chat_id": chat_id, "remove": [viewer_email]}),
    ]
    before = {d.id: d.to_dict() for d in app_db.collection(CHAT_MESSAGES).stream()}
    for name, request in refused:
        with pytest.raises(CallError) as e:
            call(name, request, viewer_token)
        assert e.value.status == "PERMISSION_DENIED", name
    assert {d.id: d.to_dict() for d in app_db.collection(CHAT_MESSAGES).stream()} == before
    assert _viewers(app_db, chat_id) == [viewer]
    # publishing is a client write: the rules refuse it (rules-tests/sharing.test.mjs)


def _rest_get_signed_out(path: str) -> int:
    host = os.environ["FIRESTORE_EMULATOR_HOST"]
    url = f"http://{host}/v1/projects/demo-cardchat/databases/(default)/documents/{path}"
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_the_author_chip_reaches_visitors_only_when_the_owner_shows_it(call, app_db, sign_up):
    email = _email()
    uid, token = sign_up(email)  # no display name: the chip names no one, and never the email
    chat_id = answered_chat(app_db, f"c{uuid.uuid4().hex[:8]}", uid)
    app_db.collection(CHATS).document(chat_id).update({"published": True})
    assert call("shareChat", {"chat_id": chat_id}, token)["show_author"] is False
    chip = app_db.collection(CHAT_AUTHORS).document(chat_id).get().to_dict()
    assert chip == {"owner": uid, "name": "", "shown": False}
    assert _rest_get_signed_out(f"{CHATS}/{chat_id}") == 200
    assert _rest_get_signed_out(f"{CHAT_AUTHORS}/{chat_id}") == 403

    assert call("shareChat", {"chat_id": chat_id, "show_author": True}, token)["show_author"] is True
    assert _rest_get_signed_out(f"{CHAT_AUTHORS}/{chat_id}") == 200
    assert call("shareChat", {"chat_id": chat_id}, token)["show_author"] is True  # kept when not given
    call("shareChat", {"chat_id": chat_id, "show_author": False}, token)
    assert _rest_get_signed_out(f"{CHAT_AUTHORS}/{chat_id}") == 403

    call("deleteChat", {"chat_id": chat_id}, token)
    assert not app_db.collection(CHAT_AUTHORS).document(chat_id).get().exists


def test_a_chip_stored_with_the_owners_email_loses_it_at_the_next_share(call, app_db, sign_up):
    email = _email()
    uid, token = sign_up(email)
    chat_id = answered_chat(app_db, f"c{uuid.uuid4().hex[:8]}", uid)
    chip = app_db.collection(CHAT_AUTHORS).document(chat_id)
    chip.set({"owner": uid, "name": email, "shown": True})  # as shareChat once wrote it

    assert call("shareChat", {"chat_id": chat_id}, token)["show_author"] is True
    assert chip.get().to_dict() == {"owner": uid, "name": "", "shown": True}


def test_visitors_of_a_published_shared_chat_learn_no_viewer(call, app_db, owned, person):
    _, token, _, chat_id = owned
    bob, bob_token, bob_email = person()
    _, stranger_token, _ = person()
    call("shareChat", {"chat_id": chat_id, "add": [bob_email]}, token)
    app_db.collection(CHATS).document(chat_id).update({"published": True})
    assert _rest_get_signed_out(f"{CHATS}/{chat_id}") == 200
    assert bob not in json.dumps(_chat(app_db, chat_id), default=str)
    mine = f"{CHAT_VIEWERS}/{chat_viewer_id(chat_id, bob)}"
    assert _rest_get_signed_out(mine) == 403
    assert _rest_get(mine, stranger_token) == 403
    assert _rest_get(mine, bob_token) == 200 and _rest_get(mine, token) == 200

    call("deleteChat", {"chat_id": chat_id}, token)  # the viewer docs go with the chat
    assert _viewers(app_db, chat_id) == []
