"""Bad input is a 4xx that costs nothing, through the
real Functions, Auth and Firestore emulators: every malformed field is
INVALID_ARGUMENT naming it, and neither bad input nor a call refused for
someone else's chat or an answer in the wrong state spends a rate-limit
slot or writes anything."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import CallError
from google.cloud.firestore import FieldFilter
from test_endpoints import ai_user, deck

from cardchat.parsing.draft_requests import MAX_DRAFT_CHARS
from cardchat.parsing.overlap_requests import OVERLAPS_LIMIT_MAX
from cardchat.parsing.requests import MAX_CONFIGURATION_DEPTH
from cardchat.repo.saved_collections import put_collection
from cardchat.schema.chat_search import MAX_CHAT_SEARCH_CHARS
from cardchat.schema.documents import CHAT_MESSAGES, CHAT_PRIVATE, CHATS, RATE_LIMITS, RATE_WINDOWS, now
from cardchat.schema.saved_collections import MAX_INSTRUCTIONS_CHARS, SAVED_COLLECTIONS, SavedCollection
from chat_support import answered_chat

pytestmark = pytest.mark.functions
__all__ = ["ai_user", "deck"]  # fixtures, used by name

LONE = "\ud800"  # sent as JSON's "\ud800": a lone surrogate, no UTF-8 form


def nested(levels: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(levels):
        value = {"k": value}
    return value


def stored(db, *uids: str) -> dict:
    """What a refused call must leave as it was: the callers' chats, those
    chats' messages and the callers' rate-limit documents (with their
    windows). Only theirs: an earlier test's late trigger may still write
    its own user's documents meanwhile."""
    chats = {
        d.id: d.to_dict()
        for uid in uids
        for d in db.collection(CHATS).where(filter=FieldFilter("owner", "==", uid)).stream()
    }
    messages = {
        d.id: d.to_dict()
        for c in chats
        for d in db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", c)).stream()
    }
    limits = {}
    for uid in uids:
        ref = db.collection(RATE_LIMITS).document(uid)
        limits[uid] = (ref.get().to_dict(), {w.id: w.to_dict() for w in ref.collection(RATE_WINDOWS).stream()})
    return {CHATS: chats, CHAT_MESSAGES: messages, RATE_LIMITS: limits}


@pytest.fixture
def spent_once(app_db, ai_user):
    """The caller has already sent one message this minute: a refusal must
    leave exactly that."""
    uid, _ = ai_user
    stamp = now()
    app_db.collection(RATE_LIMITS).document(uid).set(
        {"recent": [stamp], "day": stamp.date().isoformat(), "day_tokens": 7, "reservations": []}
    )
    return app_db


def chat_of(db, owner: str, chat_id: str, status: str, **fields) -> str:
    """A chat whose answer is in `status`; never `ready`, so no generator runs."""
    return answered_chat(db, chat_id, owner, status, ids=(f"{chat_id}-0000", f"{chat_id}-0001"), **fields)


BAD_CREATE = [
    ({"pinned_card_ids": ["__x__"]}, "pinned_card_ids"),
    ({"card_ids": ["__x__"]}, "card_ids"),
    ({"card_ids": ["tides", "a" + LONE]}, "card_ids"),
    ({"card_ids": [f"{i:04d}" + "x" * 1_400 for i in range(700)]}, "card_ids"),  # ~1 MB of ids
    ({"initial_message": "tides " + LONE}, "initial_message"),
    ({"collection": {"description": "mine " + LONE}}, "collection.description"),
    ({"collection": {"description": "d" * 2_001}}, "collection.description"),
    ({"collection": {"configuration": {"tags": [["nested", "array"]]}}}, "collection.configuration"),
    ({"collection": {"configuration": nested(25)}}, "collection.configuration"),
    ({"collection": {"configuration": nested(MAX_CONFIGURATION_DEPTH)}}, "collection.configuration"),
    ({"collection": {"configuration": {"__name__": "x"}}}, "collection.configuration"),
    ({"collection": {"configuration": {"text": LONE}}}, "collection.configuration"),
    ({"collection": {"configuration": {"text": "x" * 30_000}}}, "collection.configuration"),
    ({"collection": {"configuration": {"n": 2**64}}}, "collection.configuration"),
    ({"collection": []}, "collection"),
    ({"card_ids": None, "query": {"scope": "public"}}, "query.scope"),  # everyone's public cards: no longer a scope
    ({"card_ids": None, "query": {"scope": "everyone"}}, "query.scope"),
    ({"card_ids": None, "query": {"scope": "owner"}}, "query.owner"),
    ({"card_ids": None, "query": {"scope": "owner", "owner": ["u"]}}, "query.owner"),
    ({"card_ids": None, "query": {"scope": "mine", "owner": "u2"}}, "query.owner"),
    ({"card_ids": None, "collection_id": "__x__"}, "collection_id"),
    ({"collection_id": "c1"}, "collection_id"),  # beside the ids
    ({"look_further": "true"}, "look_further"),
    ({"look_further": 1}, "look_further"),
]


@pytest.mark.parametrize("change, field", BAD_CREATE, ids=[f"{f}-{i}" for i, (_, f) in enumerate(BAD_CREATE)])
def test_create_chat_refuses_bad_input_naming_the_field_and_spends_nothing(
    call, spent_once, ai_user, deck, change, field
):
    before = stored(spent_once, ai_user[0])
    with pytest.raises(CallError) as e:
        call("createChat", {"card_ids": deck, "initial_message": "Why are there tides?", **change}, ai_user[1])
    assert e.value.status == "INVALID_ARGUMENT"
    assert e.value.message.startswith(field + ":")
    assert stored(spent_once, ai_user[0]) == before


def test_a_configuration_within_bounds_is_stored_as_sent(call, spent_once, ai_user, deck):
    configuration = {"tag": "moon", "text": "tides", "picked": [1, "two", None], **nested(MAX_CONFIGURATION_DEPTH - 1)}
    chat_id = call(
        "createChat",
        {
            "card_ids": deck,
            "initial_message": "Why are there tides?",
            "collection": {"description": "d", "configuration": configuration},
        },
        ai_user[1],
    )["chat_id"]
    private = spent_once.collection(CHAT_PRIVATE).document(chat_id).get()
    assert private.get("collection")["configuration"] == configuration


def refused_calls(uid: str, other: str, db) -> list[tuple[str, dict, str, str]]:
    """(function, data, status, field or "") for calls refused by parsing or by the domain."""
    mine = chat_of(db, uid, "mine", "complete")
    live = chat_of(db, uid, "live", "streaming", lease_expires=now() + timedelta(minutes=5), attempts=1)
    theirs = chat_of(db, other, "theirs", "failed", error="x", attempts=1)
    theirs_saved, too_long = "their-collection", "too-long-collection"
    put_collection(db, theirs_saved, SavedCollection(other, "Theirs", "", query={"scope": "mine"}))
    over = SavedCollection(uid, "Mine", "x" * (MAX_INSTRUCTIONS_CHARS + 1), query={"scope": "mine"})
    db.collection(SAVED_COLLECTIONS).document(too_long).set(over.to_dict())  # as only the server could
    return [
        ("postMessage", {"chat_id": "__x__", "content": "hi"}, "INVALID_ARGUMENT", "chat_id"),
        ("postMessage", {"chat_id": mine, "content": "hi " + LONE}, "INVALID_ARGUMENT", "content"),
        ("postMessage", {"chat_id": mine, "content": "  "}, "INVALID_ARGUMENT", "content"),
        ("postMessage", {"chat_id": theirs, "content": "hi"}, "PERMISSION_DENIED", ""),
        ("postMessage", {"chat_id": "missing", "content": "hi"}, "NOT_FOUND", ""),
        ("postMessage", {"chat_id": live, "content": "hi"}, "FAILED_PRECONDITION", ""),
        ("retryMessage", {"message_id": "__x__"}, "INVALID_ARGUMENT", "message_id"),
        ("retryMessage", {"message_id": "a" + LONE}, "INVALID_ARGUMENT", "message_id"),
        ("retryMessage", {"message_id": f"{theirs}-0001"}, "PERMISSION_DENIED", ""),
        ("retryMessage", {"message_id": f"{mine}-0001"}, "FAILED_PRECONDITION", ""),
        ("retryMessage", {"message_id": f"{live}-0001"}, "FAILED_PRECONDITION", ""),
        ("branchChat", {"chat_id": mine, "message_index": 0, "content": LONE}, "INVALID_ARGUMENT", "content"),
        ("branchChat", {"chat_id": mine, "message_index": True, "content": "q"}, "INVALID_ARGUMENT", "message_index"),
        ("branchChat", {"chat_id": mine, "message_index": 1, "content": "q"}, "INVALID_ARGUMENT", "message_index"),
        ("branchChat", {"chat_id": theirs, "message_index": 0, "content": "q"}, "PERMISSION_DENIED", ""),
        ("deleteChat", {"chat_id": "__x__"}, "INVALID_ARGUMENT", "chat_id"),
        ("leaveChat", {"chat_id": "__x__"}, "INVALID_ARGUMENT", "chat_id"),
        ("leaveChat", {"chat_id": mine}, "NOT_FOUND", ""),  # the owner is no viewer of it
        ("leaveChat", {"chat_id": theirs}, "NOT_FOUND", ""),
        ("createChat", {"collection_id": "no-such", "initial_message": "q"}, "NOT_FOUND", "collection_id"),
        ("createChat", {"collection_id": theirs_saved, "initial_message": "q"}, "NOT_FOUND", "collection_id"),
        ("createChat", {"collection_id": too_long, "initial_message": "q"}, "INVALID_ARGUMENT", "instructions"),
        ("searchChats", {"text": "w" * (MAX_CHAT_SEARCH_CHARS + 1)}, "INVALID_ARGUMENT", "text"),
        ("relatedCards", {"card_id": "__x__"}, "INVALID_ARGUMENT", "card_id"),
        ("relatedCards", {"card_id": "no-such-card"}, "NOT_FOUND", ""),
        ("suggestFollowups", {"message_id": "__x__"}, "INVALID_ARGUMENT", "message_id"),
        ("suggestFollowups", {"message_id": f"{theirs}-0001"}, "PERMISSION_DENIED", ""),
        ("suggestFollowups", {"message_id": "missing"}, "NOT_FOUND", ""),
        ("suggestFollowups", {"message_id": f"{live}-0001"}, "FAILED_PRECONDITION", ""),
        ("pinCard", {"chat_id": mine, "card_id": "__x__"}, "INVALID_ARGUMENT", "card_id"),
        ("excludeCard", {"chat_id": mine, "card_id": "tides", "excluded": "yes"}, "INVALID_ARGUMENT", "excluded"),
        ("pinCard", {"chat_id": theirs, "card_id": "tides", "pinned": False}, "NOT_FOUND", "card_id"),
        ("excludeCard", {"chat_id": mine, "card_id": "no-such-card"}, "NOT_FOUND", "card_id"),
        ("findOverlaps", {"limit": 0}, "INVALID_ARGUMENT", "limit"),
        ("findOverlaps", {"limit": OVERLAPS_LIMIT_MAX + 1}, "INVALID_ARGUMENT", "limit"),
        ("findOverlaps", {"limit": "5"}, "INVALID_ARGUMENT", "limit"),
        ("findOverlaps", {"query": {"scope": "everyone"}}, "INVALID_ARGUMENT", "query.scope"),
        ("findOverlaps", {"query": {}, "collection_id": theirs_saved}, "INVALID_ARGUMENT", "collection_id"),
        ("findOverlaps", {"collection_id": "__x__"}, "INVALID_ARGUMENT", "collection_id"),
        ("findOverlaps", {"card_ids": ["a"]}, "INVALID_ARGUMENT", "card_ids"),
        ("findOverlaps", {"collection_id": "no-such"}, "NOT_FOUND", "collection_id"),
        ("findOverlaps", {"collection_id": theirs_saved}, "NOT_FOUND", "collection_id"),
        ("checkDraft", {"text": "w" * (MAX_DRAFT_CHARS + 1)}, "INVALID_ARGUMENT", "text"),
        ("checkDraft", {"text": ["Tides rise twice a day."]}, "INVALID_ARGUMENT", "text"),
        ("checkDraft", {"text": "  "}, "INVALID_ARGUMENT", "text"),
        ("checkDraft", {"text": "Tides " + LONE}, "INVALID_ARGUMENT", "text"),
        ("checkDraft", {"text": "Tides rise twice a day.", "query": "mine"}, "INVALID_ARGUMENT", "query"),
        (
            "checkDraft",
            {"text": "Tides rise twice a day.", "query": {"scope": "all"}},
            "INVALID_ARGUMENT",
            "query.scope",
        ),
        ("checkDraft", {"text": "Tides rise twice a day.", "card_ids": ["tides"]}, "INVALID_ARGUMENT", "card_ids"),
    ]


def test_refused_calls_name_the_field_and_spend_nothing(call, spent_once, ai_user, sign_up):
    uid, token = ai_user
    other, _ = sign_up()
    cases = refused_calls(uid, other, spent_once)
    before = stored(spent_once, uid, other)
    for name, data, status, field in cases:
        with pytest.raises(CallError) as e:
            call(name, data, token)
        assert (name, e.value.status) == (name, status), e.value.message
        assert e.value.message.startswith(f"{field}:" if field else ""), (name, e.value.message)
        assert stored(spent_once, uid, other) == before, (name, data)
