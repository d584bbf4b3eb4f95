"""findOverlaps through the real Functions, Auth and Firestore emulators: the caller's chosen cards
only (another person's private card never appears, whatever the scope), one slot of the search
minute, refusals before any slot is spent, and the answer's exact shape."""

from __future__ import annotations

import pytest
from conftest import CallError

from cardchat.repo.saved_collections import put_collection
from cardchat.schema.accounts import CARD_SOURCES, CardSources
from cardchat.schema.documents import CARDS, RATE_LIMITS, RATE_WINDOWS, SEARCH_WINDOW, Card
from cardchat.schema.saved_collections import SavedCollection

pytestmark = pytest.mark.functions

NOTE = "The harbour gate closes two hours before high tide, every day of the year."


@pytest.fixture
def people(app_db, sign_up):
    """A and B each hold a copy of one note: A's private, one of A's shared with B, and B's own two."""
    a_uid, a_token = sign_up()
    b_uid, b_token = sign_up()
    cards = {
        "a-private": Card("Harbour gate", NOTE, a_uid),
        "a-shared": Card("Harbour gate", NOTE, a_uid, viewers=[b_uid]),
        "b-gate": Card("Harbour gate", NOTE, b_uid),
        "b-gate-copy": Card("Harbour gate", NOTE, b_uid),
        "b-bread": Card("Bread", "Sourdough rises overnight in a cool kitchen.", b_uid),
    }
    batch = app_db.batch()
    for cid, card in cards.items():
        batch.set(app_db.collection(CARDS).document(cid), card.to_dict())
    batch.set(app_db.collection(CARD_SOURCES).document(b_uid), CardSources(b_uid, accepted_sharers=[a_uid]).to_dict())
    batch.commit()
    return {"a": (a_uid, a_token), "b": (b_uid, b_token)}


def ids_in(out: dict) -> set[str]:
    return {c for p in out["pairs"] for c in (p["a"], p["b"])}


def spent(db, uid: str) -> int:
    snap = db.collection(RATE_LIMITS).document(uid).collection(RATE_WINDOWS).document(SEARCH_WINDOW).get()
    return len((snap.to_dict() or {}).get("recent") or []) if snap.exists else 0


def test_the_callers_own_cards_by_default_and_never_anothers_private_card(people, call):
    _, b_token = people["b"]
    out = call("findOverlaps", {}, b_token)
    assert out == {"pairs": [{"a": "b-gate", "b": "b-gate-copy", "kind": "duplicate", "reason": "same text"}]}
    shared = call("findOverlaps", {"query": {"scope": "mine_and_shared"}}, b_token)
    assert "a-shared" in ids_in(shared) and "a-private" not in ids_in(shared)
    for scope in ({"scope": "shared"}, {"scope": "owner", "owner": people["a"][0]}):
        assert "a-private" not in ids_in(call("findOverlaps", {"query": scope}, b_token))


def test_a_saved_collection_is_reviewed_for_its_owner_only(people, app_db, call):
    b_uid, b_token = people["b"]
    put_collection(app_db, "b-saved", SavedCollection(b_uid, "Gate", card_ids=["b-gate", "a-private", "a-shared"]))
    out = call("findOverlaps", {"collection_id": "b-saved"}, b_token)
    assert ids_in(out) == {"b-gate", "a-shared"}  # A's private card, though named, is not B's to read
    with pytest.raises(CallError) as e:
        call("findOverlaps", {"collection_id": "b-saved"}, people["a"][1])
    assert (e.value.status, e.value.message.split(":")[0]) == ("NOT_FOUND", "collection_id")


def test_a_review_spends_one_search_slot_and_a_refused_one_none(people, app_db, call):
    b_uid, b_token = people["b"]
    for bad in ({"limit": 0}, {"query": {"scope": "all"}}, {"collection_id": "missing"}):
        with pytest.raises(CallError):
            call("findOverlaps", bad, b_token)
    assert spent(app_db, b_uid) == 0
    call("findOverlaps", {"limit": 1}, b_token)
    assert spent(app_db, b_uid) == 1
    with pytest.raises(CallError) as e:
        call("findOverlaps", {}, None)
    assert e.value.status == "UNAUTHENTICATED"
