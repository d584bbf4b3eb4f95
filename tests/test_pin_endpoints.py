"""pinCard and excludeCard through the real Functions, Auth and Firestore emulators: the owner's
choice is answered and kept owner-only; a missing card, a card the owner cannot read and someone
else's chat are one NOT_FOUND, alike; a 51st pin, or an exclusion past the most, is FAILED_PRECONDITION
naming the limit and spends no slot of the pin minute; bad input names its field."""

from __future__ import annotations

import pytest
from conftest import CallError
from test_endpoints import add_cards, ai_user, deck

from cardchat.schema.documents import (
    CHAT_PRIVATE,
    MAX_EXCLUSIONS,
    MAX_PINS,
    PIN_WINDOW,
    RATE_LIMITS,
    RATE_WINDOWS,
    Card,
)

pytestmark = pytest.mark.functions
__all__ = ["ai_user", "deck"]  # fixtures, used by name


def refusal(call, name: str, data: dict, token: str) -> tuple[str, str]:
    with pytest.raises(CallError) as e:
        call(name, data, token)
    return e.value.status, e.value.message


def test_the_owner_pins_and_excludes_and_every_refusal_of_a_card_looks_alike(call, app_db, ai_user, deck, sign_up):
    _, token = ai_user
    _, stranger = sign_up()
    chat_id = call("createChat", {"card_ids": deck, "initial_message": "Why are there tides?"}, token)["chat_id"]

    assert call("pinCard", {"chat_id": chat_id, "card_id": "git"}, token) == {"pinned": True, "excluded": False}
    assert call("excludeCard", {"chat_id": chat_id, "card_id": "bread"}, token) == {"pinned": False, "excluded": True}
    kept = app_db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()
    assert (kept["pinned_cards"], kept["excluded_cards"]) == (["git"], ["bread"])
    undone = call("excludeCard", {"chat_id": chat_id, "card_id": "bread", "excluded": False}, token)
    assert undone == {"pinned": False, "excluded": False}

    refusals = {
        refusal(call, name, data, who)
        for name, data, who in [
            ("pinCard", {"chat_id": chat_id, "card_id": "no-such-card"}, token),
            ("pinCard", {"chat_id": chat_id, "card_id": "vault"}, token),  # another user's private card
            ("excludeCard", {"chat_id": chat_id, "card_id": "vault"}, token),
            ("pinCard", {"chat_id": chat_id, "card_id": "bikes"}, stranger),  # a public card, someone else's chat
            ("excludeCard", {"chat_id": chat_id, "card_id": "tides", "excluded": False}, stranger),
            ("pinCard", {"chat_id": "no-such-chat", "card_id": "git"}, token),
        ]
    }
    assert len(refusals) == 1 and next(iter(refusals))[0] == "NOT_FOUND"
    kept = app_db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()
    assert (kept["pinned_cards"], kept["excluded_cards"]) == (["git"], [])

    assert refusal(call, "pinCard", {"chat_id": chat_id, "card_id": "__x__"}, token)[0] == "INVALID_ARGUMENT"
    status, message = refusal(call, "pinCard", {"chat_id": chat_id, "card_id": "git", "pinned": "yes"}, token)
    assert (status, message.split(":")[0]) == ("INVALID_ARGUMENT", "pinned")
    assert refusal(call, "pinCard", {"card_id": "git"}, token)[0] == "INVALID_ARGUMENT"
    assert refusal(call, "pinCard", {"chat_id": chat_id, "card_id": "git"}, None)[0] == "UNAUTHENTICATED"


def test_a_pin_past_the_limit_is_a_failed_precondition(call, app_db, ai_user, deck):
    uid, token = ai_user
    chat_id = call("createChat", {"card_ids": deck, "initial_message": "Why are there tides?"}, token)["chat_id"]
    many = {f"{uid}-pin-{i:02d}": Card(f"Pin {i}", "Short.", uid) for i in range(MAX_PINS)}
    add_cards(app_db, uid, many)
    app_db.collection(CHAT_PRIVATE).document(chat_id).update({"pinned_cards": list(many)})
    status, message = refusal(call, "pinCard", {"chat_id": chat_id, "card_id": "git"}, token)
    assert (status, message.split(":")[0]) == ("FAILED_PRECONDITION", "card_id")
    assert len(app_db.collection(CHAT_PRIVATE).document(chat_id).get().get("pinned_cards")) == MAX_PINS


def pin_slots(db, uid: str) -> int:
    snap = db.collection(RATE_LIMITS).document(uid).collection(RATE_WINDOWS).document(PIN_WINDOW).get()
    return len((snap.to_dict() or {}).get("recent") or []) if snap.exists else 0


def test_an_exclusion_past_the_limit_is_refused_naming_it_and_spends_no_slot(call, app_db, ai_user, deck):
    uid, token = ai_user
    chat_id = call("createChat", {"card_ids": deck, "initial_message": "Why are there tides?"}, token)["chat_id"]
    full = [f"{uid}-gone-{i:03d}" for i in range(MAX_EXCLUSIONS)]
    app_db.collection(CHAT_PRIVATE).document(chat_id).update({"excluded_cards": full})
    status, message = refusal(call, "excludeCard", {"chat_id": chat_id, "card_id": "git"}, token)
    assert (status, message.split(":")[0]) == ("FAILED_PRECONDITION", "card_id")
    assert f"at most {MAX_EXCLUSIONS} excluded" in message
    assert app_db.collection(CHAT_PRIVATE).document(chat_id).get().get("excluded_cards") == full
    assert pin_slots(app_db, uid) == 0
    undone = call("excludeCard", {"chat_id": chat_id, "card_id": full[0], "excluded": False}, token)
    assert undone == {"pinned": False, "excluded": False}
    assert pin_slots(app_db, uid) == 1
