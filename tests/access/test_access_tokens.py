"""Personal access tokens against the Firestore and Auth emulators: a token
acts as its owner, is spent per request against its own minute, stops at once
when revoked and soon after its account is deleted or disabled; at most twenty
a user, however many are made at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from firebase_admin import auth

from cardchat.access import access_tokens
from cardchat.errors import FailedPrecondition, NotFound, PermissionDenied, ResourceExhausted, Unauthenticated
from cardchat.schema.accounts import ACCESS_TOKEN_HASHES, ACCESS_TOKENS

pytestmark = pytest.mark.emulator

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def bearer(token: str) -> str:
    return f"Bearer {token}"


@pytest.fixture
def alice(auth_accounts) -> str:
    return auth_accounts()


def test_a_token_acts_as_its_owner_and_only_its_hash_is_stored(db, alice):
    made = access_tokens.create(db, alice, "laptop", when=T0)
    assert made.token.startswith("ccpat_") and len(made.token) > 40
    assert access_tokens.authenticate(db, bearer(made.token), T0) == alice
    (stored,) = db.collection(ACCESS_TOKEN_HASHES).stream()
    assert stored.id == access_tokens.hash_token(made.token) and made.token not in str(stored.to_dict())
    listing = db.collection(ACCESS_TOKENS).document(made.token_id).get().to_dict()
    assert listing == {"owner": alice, "label": "laptop", "created": T0, "last_used": T0, "scope": "read"}


def test_a_token_reads_only_unless_made_to_write(db, alice):
    """The scope is the token's, fixed when it is made; a read token asking to write is refused, saying why."""
    reader = access_tokens.create(db, alice, "reader", when=T0)
    writer = access_tokens.create(db, alice, "writer", when=T0, scope="write")
    read_as = access_tokens.bearer(db, bearer(reader.token), T0)
    with pytest.raises(PermissionDenied, match="may only read"):
        read_as.require_write()
    assert access_tokens.bearer(db, bearer(writer.token), T0).require_write() == alice
    assert db.collection(ACCESS_TOKENS).document(writer.token_id).get().get("scope") == "write"


@pytest.mark.parametrize("header", [None, "", "Bearer", "Basic abc", "Bearer ccpat_nope", "bearer  "])
def test_anything_but_a_known_token_is_unauthenticated(db, alice, header):
    access_tokens.create(db, alice, "laptop", when=T0)
    with pytest.raises(Unauthenticated):
        access_tokens.authenticate(db, header, T0)


def test_each_request_spends_a_slot_of_its_users_minute_whichever_token_it_shows(db, alice, auth_accounts):
    bob = auth_accounts()
    mine = access_tokens.create(db, alice, "laptop", when=T0).token
    other = access_tokens.create(db, alice, "desktop", when=T0).token
    bobs = access_tokens.create(db, bob, "his", when=T0).token
    for i, token in enumerate([mine, other, mine]):
        access_tokens.authenticate(db, bearer(token), T0 + timedelta(seconds=i), limit=3)
    for token in (mine, other):  # a second token buys no more requests
        with pytest.raises(ResourceExhausted) as e:
            access_tokens.authenticate(db, bearer(token), T0 + timedelta(seconds=10), limit=3)
        assert 49 <= e.value.retry_after <= 50 and "at most 3 a minute" in e.value.message
    assert access_tokens.authenticate(db, bearer(bobs), T0 + timedelta(seconds=10), limit=3) == bob
    assert access_tokens.authenticate(db, bearer(other), T0 + timedelta(seconds=61), limit=3) == alice


def test_revoking_by_token_or_by_id_stops_it_at_once_and_only_for_its_owner(db, alice):
    first = access_tokens.create(db, alice, "one", when=T0)
    second = access_tokens.create(db, alice, "two", when=T0)
    with pytest.raises(NotFound):
        access_tokens.revoke(db, "mallory", token=first.token)
    with pytest.raises(NotFound):
        access_tokens.revoke(db, "mallory", token_id=second.token_id)
    assert access_tokens.authenticate(db, bearer(first.token), T0) == alice

    access_tokens.revoke(db, alice, token=first.token)
    with pytest.raises(Unauthenticated):
        access_tokens.authenticate(db, bearer(first.token), T0)
    access_tokens.revoke(db, alice, token_id=second.token_id)
    with pytest.raises(Unauthenticated):
        access_tokens.authenticate(db, bearer(second.token), T0)
    assert list(db.collection(ACCESS_TOKENS).stream()) == []
    assert list(db.collection(ACCESS_TOKEN_HASHES).stream()) == []
    with pytest.raises(NotFound):
        access_tokens.revoke(db, alice, token_id=second.token_id)


def test_a_user_holds_at_most_twenty_tokens(db, alice, auth_accounts):
    for i in range(access_tokens.MAX_TOKENS_PER_USER):
        access_tokens.create(db, alice, f"t{i}", when=T0)
    with pytest.raises(FailedPrecondition):
        access_tokens.create(db, alice, "one more", when=T0)
    access_tokens.create(db, auth_accounts(), "his first", when=T0)


def test_twenty_tokens_at_most_however_many_are_made_at_once(db, alice):
    for i in range(access_tokens.MAX_TOKENS_PER_USER - 2):
        access_tokens.create(db, alice, f"t{i}", when=T0)

    def make(i: int) -> str:
        try:
            access_tokens.create(db, alice, f"racing {i}", when=T0)
            return "made"
        except FailedPrecondition:
            return "refused"

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(make, range(4)))
    assert sorted(outcomes) == ["made"] * 2 + ["refused"] * 2
    assert len(list(db.collection(ACCESS_TOKENS).stream())) == access_tokens.MAX_TOKENS_PER_USER
    assert len(list(db.collection(ACCESS_TOKEN_HASHES).stream())) == access_tokens.MAX_TOKENS_PER_USER


def test_a_deleted_or_disabled_accounts_tokens_are_refused(db, auth_accounts):
    deleted, disabled = auth_accounts(), auth_accounts()
    gone = access_tokens.create(db, deleted, "laptop", when=T0).token
    off = access_tokens.create(db, disabled, "laptop", when=T0).token
    auth.delete_user(deleted)
    auth.update_user(disabled, disabled=True)
    for token in (gone, off):
        with pytest.raises(Unauthenticated):
            access_tokens.authenticate(db, bearer(token), T0)


def test_an_account_check_holds_for_a_short_while_then_is_asked_again(db, auth_accounts):
    uid = auth_accounts()
    token = access_tokens.create(db, uid, "laptop", when=T0).token
    assert access_tokens.authenticate(db, bearer(token), T0) == uid
    auth.update_user(uid, disabled=True)
    # the MCP endpoint is called often: Auth is asked once per ACCOUNT_CHECK_TTL per instance
    assert access_tokens.authenticate(db, bearer(token), T0 + timedelta(seconds=1)) == uid
    with pytest.raises(Unauthenticated):
        access_tokens.authenticate(db, bearer(token), T0 + access_tokens.ACCOUNT_CHECK_TTL)


def test_the_rate_is_configurable():
    assert access_tokens.per_minute({}) == 60
    assert access_tokens.per_minute({"CARDCHAT_MCP_RATE_PER_MINUTE": "5"}) == 5
    with pytest.raises(ValueError, match="CARDCHAT_MCP_RATE_PER_MINUTE"):
        access_tokens.per_minute({"CARDCHAT_MCP_RATE_PER_MINUTE": "0"})
