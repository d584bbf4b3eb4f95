"""continueChat and the own-key callables through the real Functions, Auth
and Firestore emulators: what a signed-in client can and cannot get out of them."""

from __future__ import annotations

import pytest
from conftest import CallError
from google.cloud.firestore import FieldFilter
from test_endpoints import SECRET_SENTENCE, ai_user, deck, wait_for

from cardchat.repo.chats import read_background
from cardchat.schema.accounts import USER_API_KEYS
from cardchat.schema.documents import CHAT_MESSAGES, CHAT_PRIVATE, CHATS, USERS, UserDoc

pytestmark = pytest.mark.functions
__all__ = ["ai_user", "deck"]  # fixtures, used by name

OWN = "sk-ant-api03-OWNKEY0123456789abcdefghijklmnopqrstuvwxyzWXYZ"


def _answered(app_db, chat_id: str) -> None:
    def done():
        docs = app_db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", chat_id)).get()
        return [d for d in docs if d.get("role") == "assistant" and d.get("status") == "complete"]

    wait_for(done, what="the first answer")


def _cited_ids(app_db, chat_id: str) -> list[str]:
    """The card ids the chat's complete answers cite (their `sources`, read against its card_ids)."""
    card_ids = app_db.collection(CHAT_PRIVATE).document(chat_id).get().get("card_ids")
    answers = app_db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", chat_id)).get()
    numbers = {n for d in answers if d.get("status") == "complete" for n in (d.to_dict().get("sources") or [])}
    return [card_ids[n - 1] for n in sorted(numbers)]


def test_a_signed_in_visitor_continues_a_published_chat_without_the_owners_private_cards(
    call, app_db, ai_user, deck, sign_up
):
    _, owner_token = ai_user
    source = call("createChat", {"card_ids": deck, "initial_message": "Why does the sea have tides?"}, owner_token)
    chat_id = source["chat_id"]
    _answered(app_db, chat_id)
    visitor, token = sign_up()
    app_db.collection(USERS).document(visitor).set(UserDoc(may_use_ai=True).to_dict())
    with pytest.raises(CallError) as unpublished:
        call("continueChat", {"chat_id": chat_id}, token)
    with pytest.raises(CallError) as unknown:
        call("continueChat", {"chat_id": "no-such-chat"}, token)
    assert unpublished.value.status == unknown.value.status == "NOT_FOUND"
    assert unpublished.value.message == unknown.value.message

    app_db.collection(CHATS).document(chat_id).update({"published": True})
    new_id = call("continueChat", {"chat_id": chat_id}, token)["chat_id"]
    assert app_db.collection(CHATS).document(new_id).get().get("owner") == visitor
    assert app_db.collection(CHAT_PRIVATE).document(new_id).get().get("continued_from") == {
        "chat": chat_id,
        "messages": 2,
    }
    owners = read_background(app_db, chat_id)
    assert "moon's gravity" in owners  # the owner's private card was in their background...
    mine = read_background(app_db, new_id)
    assert (
        "moon's gravity" not in mine and "Sourdough" not in mine and SECRET_SENTENCE not in mine
    )  # ...not in the visitor's
    # the public card only if the copied answer cites it: the visitor learns no uncited card
    cited = _cited_ids(app_db, chat_id)
    assert ("Bicycle chain wear" in mine) == ("bikes" in cited)
    assert [c for c in app_db.collection(CHAT_PRIVATE).document(new_id).get().get("card_ids") if c] == [
        c for c in cited if c == "bikes"
    ]


def test_continue_chat_needs_a_signed_in_user_with_ai_use(call, sign_up):
    with pytest.raises(CallError) as e:
        call("continueChat", {"chat_id": "x"})
    assert e.value.status == "UNAUTHENTICATED"
    _, token = sign_up()
    with pytest.raises(CallError) as e:
        call("continueChat", {"chat_id": "x"}, token)
    assert e.value.status == "NOT_FOUND"  # existence first: an unreadable chat says nothing more


def test_an_own_key_is_stored_sealed_shown_by_its_last_four_offers_its_models_and_is_deleted(call, app_db, sign_up):
    uid, token = sign_up()  # no AI use granted
    with pytest.raises(CallError) as e:
        call("setApiKey", {"provider": "openai", "key": OWN}, token)
    assert e.value.status == "INVALID_ARGUMENT" and "OWNKEY" not in e.value.message
    with pytest.raises(CallError) as e:
        call("setApiKey", {"provider": "anthropic", "key": OWN})
    assert e.value.status == "UNAUTHENTICATED"

    shown = call("setApiKey", {"provider": "anthropic", "key": OWN}, token)
    assert shown["provider"] == "anthropic" and shown["last4"] == "WXYZ"
    assert [(k["provider"], k["last4"]) for k in call("listApiKeys", {}, token)["keys"]] == [("anthropic", "WXYZ")]
    stored = app_db.collection(USER_API_KEYS).document(uid).get().to_dict()
    assert "OWNKEY" not in repr(stored)
    models = {m["id"]: m for m in call("listModels", {}, token)["models"]}
    assert models["claude-sonnet-4-6"]["own_key"] is True and models["offline-extractive"]["own_key"] is False
    assert all(not m["own_key"] for m in call("listModels", {})["models"])  # signed out: the deployment's only
    with pytest.raises(CallError) as e:  # the offline answerer is not on their key: AI use is still needed
        call("createChat", {"card_ids": ["x"], "initial_message": "hi", "model": "offline-extractive"}, token)
    assert e.value.status == "PERMISSION_DENIED"

    assert call("deleteApiKey", {"provider": "anthropic"}, token) == {"keys": []}
    assert "claude-sonnet-4-6" not in {m["id"] for m in call("listModels", {}, token)["models"]} or all(
        not m["own_key"] for m in call("listModels", {}, token)["models"]
    )
