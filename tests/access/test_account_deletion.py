"""Nothing left behind: deleting a chat or an account leaves no trace of it in
any collection the product writes, through the real Functions, Auth and
Firestore emulators. Every collection of common/collections.json is classified
here, so a new one fails `test_every_collection_is_classified` until someone
says whose data it holds and how it is removed."""

from __future__ import annotations

import base64
import json
import os
import time
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import APP_PROJECT, CallError, _post
from google.cloud.firestore import FieldFilter
from test_endpoints import add_cards, wait_for

from cardchat.__main__ import main as cli
from cardchat.access import account_deletion
from cardchat.chat.recheck import withdraw_cards_of
from cardchat.repo import account_data
from cardchat.repo.chats import read_background
from cardchat.schema.accounts import CARD_SOURCES, CardSources, FollowedSource
from cardchat.schema.card_syncs import CARD_SYNC_RUNS, CARD_SYNCS, SYNC_RUN_TTL, CardSync, SyncRun
from cardchat.schema.documents import (
    CARD_EMBEDDINGS,
    CHAT_BACKGROUND_PARTS,
    CHAT_MESSAGES,
    CHATS,
    COLLECTIONS,
    RETRIEVAL_INDEX,
    RETRIEVAL_INDEX_SHARDS,
    SCRATCH_TTL,
    USERS,
    Card,
    UserDoc,
    now,
)
from cardchat.schema.messages import StreamChunk
from cardchat.schema.saved_collections import SAVED_COLLECTIONS, SavedCollection

#: Whose data each collection holds: "per-user" (removed by deleteAccount), "per-chat" (by
#: deleteChat, and so by deleteAccount for each of the user's chats), "per-card" (with the
#: card, and so with its owner's account), or "global" (shared by everyone: the reason why
#: it holds nothing of one user or chat).
KINDS: dict[str, tuple[str, str]] = {
    "cards": ("per-user", "`owner`; public and shared cards go too"),
    "users": ("per-user", "keyed by uid"),
    "card_embeddings": ("per-card", "keyed by card id, `owner`"),
    "chats": ("per-chat", "keyed by chat id, `owner`"),
    "chat_viewers": ("per-chat", "keyed by chat id_uid, `chat`; others' chats shared with the user: `viewer`"),
    "chat_private": ("per-chat", "keyed by chat id"),
    "chat_messages": ("per-chat", "`chat`"),
    "chat_messages_streaming": ("per-chat", "`chat`; `expires` under a TTL policy"),
    "chat_backgrounds": ("per-chat", "keyed by chat id"),
    "chat_background_parts": ("per-chat", "a subcollection of the chat's background"),
    "rate_limits": ("per-user", "keyed by uid"),
    "user_api_keys": ("per-user", "keyed by uid"),
    "access_tokens": ("per-user", "`owner`"),
    "access_token_hashes": ("per-user", "`owner`"),
    "chat_authors": ("per-chat", "keyed by chat id"),
    "answer_feedback": ("per-user", "`owner` (and `chat`: deleteChat removes it too)"),
    "answer_usage": ("per-user", "`owner` (and `chat`: deleteChat removes it too)"),
    "usage_daily": ("per-user", "`owner`"),
    "chat_sources": ("per-chat", "keyed by chat id"),
    "embedding_queue": ("per-card", "keyed by card id, `owner`"),
    "embedding_workers": ("per-user", "keyed by uid"),
    "embedding_progress": ("per-user", "keyed by uid"),
    "embedding_handovers": ("per-user", "keyed by uid"),
    "viewer_lookups": ("per-user", "keyed by uid; others' `found` lose the uid"),
    "retrieval_index": ("per-user", "keyed by uid and uid~public"),
    "retrieval_index_shards": ("per-user", "`owner`: the head's key"),
    "card_sources": ("per-user", "keyed by uid; others' `hidden_sharers`, `accepted_sharers` lose the uid"),
    "rate_windows": ("per-user", "a subcollection of rate_limits/{uid}"),
    "embedding_skips": ("per-card", "keyed by uid:card id, `owner`"),
    "card_write_minutes": ("per-user", "keyed by uid"),
    "access_token_owners": ("per-user", "keyed by uid"),
    "collections": ("per-user", "`owner`: a user's saved collections"),
    "chat_search": ("per-user", "keyed by uid; a deleted chat leaves every reader's (deleteChat)"),
    "chat_search_shards": ("per-user", "`owner`, keyed uid_n; a deleted chat's postings leave every reader's"),
    "chat_search_messages": ("per-chat", "keyed by chat id"),
    "account_deletions": ("per-user", "keyed by uid; goes with the deletion's later pass"),
    "card_syncs": ("per-user", "`owner`, keyed by the synced card's id"),
    "card_sync_paths": ("per-user", "`owner`, keyed by uid:hash:shard"),
    "card_sync_runs": ("per-user", "`owner`, keyed by uid:hash; expires under a TTL policy"),
}
#: Where another user's document may still hold the leaver's card text: the answers that
#: user already got are their transcript (chunks are that transcript while it streams).
TRANSCRIPTS = {COLLECTIONS["chat_messages"], COLLECTIONS["chat_messages_streaming"]}
SECRET = "The lighthouse keeper's door code is 90210"
#: The leaver's cards: no id of theirs may stay anywhere either (another chat's card_ids, a stamp).
LEAVER_CARDS = ["leaver-private", "leaver-public", "leaver-shared", "leaver-late"]
#: Some of what the leaver's activity writes, which the scan must see before the deletion.
SEEN_BEFORE = (
    "chat_viewers/",
    "rate_limits/",
    "/windows/",
    "card_write_minutes/",
    "access_token_owners/",
    "retrieval_index_shards/",
    "chat_search/",
    "collections/",
    "answer_usage/",
    "card_syncs/",
    "card_sync_runs/",
)


def test_scratch_documents_expire_under_the_ttl_policies_the_repository_declares():
    """Streaming chunks and sync runs are scratch: a run that dies (an answer's, a sync client's)
    leaves them to the TTL policy."""
    overrides = json.loads((Path(__file__).parents[2] / "firestore.indexes.json").read_text())["fieldOverrides"]
    ttl = {(o["collectionGroup"], o["fieldPath"]) for o in overrides if o.get("ttl")}
    assert ttl == {(COLLECTIONS["chat_messages_streaming"], "expires"), (CARD_SYNC_RUNS, "expires")}
    chunk = StreamChunk("chat", "message", 1, 0, "text")
    assert chunk.to_dict()["expires"] == chunk.timestamp + SCRATCH_TTL


def test_every_collection_is_classified():
    assert set(KINDS) == set(COLLECTIONS), "classify the new collection in KINDS (and delete it with its owner)"
    for name, (kind, reason) in KINDS.items():
        assert kind in {"per-user", "per-chat", "per-card", "global"} and reason, name


def traces(db, markers: list[str], others_chats: set[str] = frozenset()) -> list[str]:
    """Every document, in every collection, whose id or fields hold one of `markers`;
    the SECRET is allowed only in the transcripts of `others_chats`."""
    found = []
    for name in COLLECTIONS.values():
        for doc in db.collection_group(name).stream():  # top-level documents and subcollections alike
            data = doc.to_dict() or {}
            text = doc.reference.path + repr(data)
            for marker in markers:
                allowed = marker == SECRET and name in TRANSCRIPTS and data.get("chat") in others_chats
                if marker in text and not allowed:
                    found.append(f"{doc.reference.path} holds {marker!r}")
    return found


def _account(app_db, sign_up) -> tuple[str, str, str]:
    email = f"leave{os.urandom(4).hex()}@cardchat.test"
    uid, token = sign_up(email)
    app_db.collection(USERS).document(uid).set(UserDoc(may_use_ai=True).to_dict())
    return uid, token, email


def _answered(app_db, chat_id: str, message_id: str | None = None) -> str:
    message_id = message_id or f"{chat_id}-0001"  # a chat's first answer
    wait_for(
        lambda: app_db.collection(CHAT_MESSAGES).document(message_id).get().get("status") == "complete",
        what=f"answer {message_id}",
    )
    return message_id


def _leaver_with_everything(call, app_db, leaver, stayer) -> dict[str, str]:
    """The leaver's cards (private, public, shared with the stayer), index, a chat shared
    with the stayer and rated, a token, an own key, look-ups, card sources; the stayer
    shares a card with them and hides their shared cards. Returns the leaver's chat id."""
    (me, token, my_email), (other, other_token, other_email) = leaver, stayer
    add_cards(
        app_db,
        me,
        {
            "leaver-private": Card("Lighthouse door", SECRET, me),
            "leaver-public": Card("Lighthouse lens", f"A Fresnel lens. {SECRET}", me, visibility="public"),
            "leaver-shared": Card("Lighthouse keeper", f"Keeps the light. {SECRET}", me, viewers=[other]),
        },
    )
    add_cards(app_db, other, {"stayer-card": Card("Harbour", "The harbour opens at dawn.", other, viewers=[me])})
    for public in ("", "~public"):
        wait_for(lambda p=public: app_db.collection(RETRIEVAL_INDEX).document(me + p).get().exists, what="index")
    ids = ["leaver-private", "leaver-public", "leaver-shared"]
    chat_id = call("createChat", {"card_ids": ids, "initial_message": "What is the door code?"}, token)["chat_id"]
    call("rateAnswer", {"message_id": _answered(app_db, chat_id), "rating": "up", "comment": "yes"}, token)
    call("shareChat", {"chat_id": chat_id, "add": [other_email]}, token)
    call("createAccessToken", {"label": "laptop"}, token)
    app_db.collection(SAVED_COLLECTIONS).document(f"{me}-col").set(
        SavedCollection(me, "Lighthouse", SECRET, query={"scope": "mine"}).to_dict()
    )
    app_db.collection(CARD_SYNCS).document("leaver-private").set(
        CardSync(me, "leaver-private", "vault", "lighthouse.md", "0" * 64, "1" * 64).to_dict()
    )
    app_db.collection(CARD_SYNC_RUNS).document(f"{me}:run").set(
        SyncRun(me, f"{me}:run", now() + SYNC_RUN_TTL, ["leaver-private"]).to_dict()
    )
    call("searchCards", {"text": "lighthouse"}, token)  # the search minute: rate_limits/{uid}/windows
    call("setApiKey", {"provider": "anthropic", "key": "sk-ant-api03-" + "LEAVER0123456789" * 3}, token)
    call("resolveViewers", {"emails": [other_email]}, token)
    call("resolveViewers", {"emails": [my_email]}, other_token)
    app_db.collection(CARD_SOURCES).document(me).set(CardSources(me, [FollowedSource(other)]).to_dict())
    app_db.collection(CARD_SOURCES).document(other).set(CardSources(other, hidden_sharers=[me]).to_dict())
    return {"chat": chat_id}


def _signs_in(email: str) -> bool:
    host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
    url = f"http://{host}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-key"
    return "idToken" in _post(url, {"email": email, "password": "secret-pass", "returnSecureToken": True})


def _events_delivered(app_db, owner: str, barrier: str = "barrier") -> None:
    """The Functions emulator delivers trigger events one at a time, in order: once a card
    written now is embedded, the events of the cards deleted before it have run."""
    add_cards(app_db, owner, {barrier: Card("Barrier", f"Written after the deletion: {barrier}.", owner)})
    wait_for(lambda: app_db.collection(CARD_EMBEDDINGS).document(barrier).get().exists, what="the barrier card")


def _later_pass(app_db) -> list[str]:
    """The scheduled later pass, run as if its time had come."""
    return account_deletion.finish_due(
        app_db, withdraw_cards_of, now() + account_deletion.LATER_PASS + timedelta(minutes=1)
    )


def _signed_in_ago(token: str, seconds: int) -> str:
    """The Auth emulator's (unsigned) ID token of the same user, its sign-in `seconds` ago."""
    head, body, sig = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims["auth_time"] = int(time.time()) - seconds
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return ".".join((head, body, sig))


@pytest.mark.functions
def test_a_user_leaves_and_nothing_of_theirs_is_left_but_what_others_were_told(call, app_db, sign_up):
    leaver, stayer = _account(app_db, sign_up), _account(app_db, sign_up)
    (me, token, email), (other, other_token, _) = leaver, stayer
    mine = _leaver_with_everything(call, app_db, leaver, stayer)
    cited = call("createChat", {"card_ids": ["stayer-card", "leaver-public"], "initial_message": "Lens?"}, other_token)
    _answered(app_db, cited["chat_id"])
    call("shareChat", {"chat_id": cited["chat_id"], "add": [email]}, other_token)  # a viewer doc names the leaver
    assert SECRET in read_background(app_db, cited["chat_id"])
    markers = [me, mine["chat"], SECRET, *LEAVER_CARDS]
    before = traces(app_db, markers, {cited["chat_id"]})
    for name in [*SEEN_BEFORE, "leaver-public"]:
        assert any(name in t for t in before), name  # the scan sees them
    assert any(cited["chat_id"] in t and "leaver-public" in t for t in before)  # the stayer's chat names the card

    # Signed in just now, as the app asks before a deletion (the world above can take minutes on a loaded runner).
    assert call("deleteAccount", {}, _signed_in_ago(token, 0)) == {}
    assert not _signs_in(email)
    # The stayer's chat cited the leaver's public card: withdrawn by the deletion, not at its next answer.
    assert SECRET not in read_background(app_db, cited["chat_id"])
    # What the leaver's still-valid ID token writes after the deletion goes with its later pass.
    add_cards(app_db, me, {"leaver-late": Card("Lighthouse late", SECRET, me, visibility="public")})
    _events_delivered(app_db, other)
    assert traces(app_db, markers, {cited["chat_id"]})  # the late card and the pass's mark
    assert me in _later_pass(app_db)
    _events_delivered(app_db, other, "barrier-2")
    assert traces(app_db, markers, {cited["chat_id"]}) == []
    asked = call("postMessage", {"chat_id": cited["chat_id"], "content": "And the harbour?"}, other_token)
    _answered(app_db, cited["chat_id"], asked["message_id"])
    assert app_db.collection(CHATS).document(cited["chat_id"]).get().exists  # the stayer's own data stays
    assert app_db.collection("cards").document("stayer-card").get().get("viewers") == []
    assert call("deleteAccount", {}, _signed_in_ago(token, 0)) == {}  # run again: nothing left, no error
    assert me in _later_pass(app_db)


@pytest.mark.functions
def test_deleting_an_account_needs_a_recent_sign_in(call, app_db, sign_up):
    me, token, email = _account(app_db, sign_up)
    add_cards(app_db, me, {"kept": Card("Kept", "Still here.", me)})
    stale = _signed_in_ago(token, int(account_deletion.RECENT_SIGN_IN.total_seconds()) + 60)
    with pytest.raises(CallError) as e:
        call("deleteAccount", {}, stale)
    assert (e.value.status, e.value.message.split(":")[0]) == ("FAILED_PRECONDITION", "sign_in")
    assert "sign in again" in e.value.message
    assert app_db.collection("cards").document("kept").get().exists and _signs_in(email)
    assert call("deleteAccount", {}, _signed_in_ago(token, 10)) == {}
    assert not _signs_in(email)


@pytest.mark.functions
def test_a_deletion_interrupted_at_any_step_leaves_a_whole_index_or_none_and_finishes_when_run_again(
    call, app_db, sign_up
):
    leaver, stayer = _account(app_db, sign_up), _account(app_db, sign_up)
    mine = _leaver_with_everything(call, app_db, leaver, stayer)
    me = leaver[0]
    for step in account_data.STEPS[:-1]:  # a deletion that stops after each step in turn
        step(app_db, me)
        for key in (me, me + "~public"):
            head = app_db.collection(RETRIEVAL_INDEX).document(key).get()
            if head.exists:  # a reader finds every shard its head names
                refs = [app_db.collection(RETRIEVAL_INDEX_SHARDS).document(s) for s in head.get("shards")]
                assert all(s.exists for s in app_db.get_all(refs)), step.__name__
        if step is account_data.delete_cards:
            break  # interrupted here: the cards are gone, the index shards and records are not
    assert app_db.collection(RETRIEVAL_INDEX_SHARDS).where(filter=FieldFilter("owner", "==", me)).get()
    assert traces(app_db, [me])  # half done
    # The next run, an admin's from the CLI, finishes it.
    assert cli(["--project", APP_PROJECT, "delete-account", "--uid", me]) == 0
    assert not _signs_in(leaver[2])
    _events_delivered(app_db, stayer[0])
    assert me in _later_pass(app_db)  # its mark, the one trace it leaves until then
    assert traces(app_db, [me, mine["chat"]]) == []


@pytest.mark.functions
def test_deleting_a_chat_leaves_nothing_of_it(call, app_db, sign_up):
    leaver, stayer = _account(app_db, sign_up), _account(app_db, sign_up)
    chat_id = _leaver_with_everything(call, app_db, leaver, stayer)["chat"]
    assert app_db.collection_group(CHAT_BACKGROUND_PARTS).get()
    call("deleteChat", {"chat_id": chat_id}, leaver[1])
    assert traces(app_db, [chat_id]) == []


@pytest.mark.functions
def test_nobody_deletes_another_users_account(call, app_db, sign_up):
    (me, _, email), (_, other_token, _) = _account(app_db, sign_up), _account(app_db, sign_up)
    add_cards(app_db, me, {"mine": Card("Mine", "Still here.", me)})
    with pytest.raises(CallError) as e:
        call("deleteAccount", {"uid": me}, other_token)
    assert e.value.status == "PERMISSION_DENIED"
    with pytest.raises(CallError) as e:
        call("deleteAccount", {"uid": me})
    assert e.value.status == "UNAUTHENTICATED"
    assert app_db.collection("cards").document("mine").get().exists and _signs_in(email)


@pytest.mark.functions
def test_a_deletion_revokes_the_sessions_before_it_deletes_the_account(app_db, sign_up):
    from firebase_admin import auth

    from cardchat.repo.admin_app import admin_app

    me, _, email = _account(app_db, sign_up)
    app = admin_app(APP_PROJECT)
    issued = auth.get_user(me, app=app).tokens_valid_after_timestamp
    time.sleep(1.1)  # the Auth record keeps whole seconds: a revocation now is a later second

    def interrupted(db, uid):  # the deletion dies in its last step, before the Auth user goes
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        account_deletion.erase(app_db, me, interrupted, auth_app=app)
    assert _signs_in(email)  # the account is still there ...
    assert auth.get_user(me, app=app).tokens_valid_after_timestamp > issued  # ... and no session outlives it
