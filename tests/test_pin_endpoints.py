"""pinCard and excludeCard through the real Functions, Auth and Firestore emulators: the owner's
choice is answered and kept owner-only; a missing card, a card the owner cannot read and someone
else's chat are one NOT_FOUND, alike; a 51st pin is FAILED_PRECONDITION; bad input names its field."""

from __future__ import annotations

import pytest
from conftest import CallError
from test_endpoints import add_cards, ai_user, deck

from cardchat.schema.documents import CHAT_PRIVATE, MAX_PINS, Card

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
