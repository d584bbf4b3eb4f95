"""The callables and triggers through the real Functions, Auth and Firestore
emulators: what a signed-in client can and cannot get out of them."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import APP_PROJECT, FULL_MINUTE_AHEAD, CallError
from google.cloud.firestore import FieldFilter

from cardchat.schema.documents import (
    CARD_EMBEDDINGS,
    CARDS,
    CHAT_BACKGROUND_PARTS,
    CHAT_BACKGROUNDS,
    CHAT_MESSAGES,
    CHAT_MESSAGES_STREAMING,
    CHAT_PRIVATE,
    CHATS,
    RATE_LIMITS,
    USERS,
    Card,
    UserDoc,
    now,
)
from fault_support import stack_workers

pytestmark = pytest.mark.functions

SECRET_SENTENCE = "The vault combination is forty-two seventeen ninety and only Mallory knows it."


def wait_for(predicate, timeout: float = 180, what: str = "condition"):
    # The timeout only ends a run that is broken: a trigger's worker niced below a busy machine's
    # other suites (scripts/run-suites) can take a minute and more to start and to embed.
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def add_cards(db, owner: str, cards: dict[str, Card]) -> None:
    batch = db.batch()
    for cid, card in cards.items():
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
    batch.commit()


@pytest.fixture
def ai_user(app_db, sign_up):
    uid, token = sign_up()
    app_db.collection(USERS).document(uid).set(UserDoc(may_use_ai=True).to_dict())
    return uid, token


@pytest.fixture
def deck(app_db, ai_user, sign_up):
    """A small deck with one obvious answer and another user's private card."""
    uid, _ = ai_user
    other, _ = sign_up()
    mine = {
        "tides": Card(
            "Why the sea has tides",
            "The moon's gravity pulls the oceans, raising two tidal bulges; "
            "the earth turns beneath them, so most coasts see two high tides a day.",
            uid,
        ),
        "bread": Card(
            "Sourdough starter care",
            "Feed the starter flour and water daily; keep it at room temperature and discard half before each feeding.",
            uid,
        ),
        "git": Card(
            "Undoing a git commit",
            "git reset --soft HEAD~1 moves the branch back one commit and keeps the changes staged.",
            uid,
        ),
        "bikes": Card(
            "Bicycle chain wear",
            "Measure chain stretch with a gauge; replace the chain at 0.5 % wear to spare the cassette.",
            uid,
            visibility="public",
        ),
    }
    secret = {"vault": Card("Moon and tides secret", SECRET_SENTENCE + " The moon and the tides.", other)}
    add_cards(app_db, uid, mine)
    add_cards(app_db, other, secret)
    return list(mine) + list(secret)


def test_list_models_answers_with_the_offline_default(call):
    out = call("listModels", {})
    ids = [m["id"] for m in out["models"]]
    assert "offline-extractive" in ids
    assert out["default"] in ids
    assert all("key_env" not in m for m in out["models"])
    assert next(m for m in out["models"] if m["id"] == "offline-extractive")["offline"] is True


def test_create_chat_needs_a_signed_in_user(call, deck):
    with pytest.raises(CallError) as e:
        call("createChat", {"card_ids": deck, "initial_message": "hi"})
    assert e.value.status == "UNAUTHENTICATED"


def test_create_chat_needs_may_use_ai(call, app_db, sign_up, deck):
    _, token = sign_up()
    with pytest.raises(CallError) as e:
        call("createChat", {"card_ids": deck, "initial_message": "hi"}, token)
    assert e.value.status == "PERMISSION_DENIED"


@pytest.mark.parametrize(
    "change, field",
    [
        ({"initial_message": "   "}, "initial_message"),
        ({"initial_message": "x" * 32_001}, "initial_message"),
        ({"card_ids": []}, "card_ids"),
        ({"card_ids": [f"c{i}" for i in range(20_001)]}, "card_ids"),
        ({"card_ids": ["a/b"]}, "card_ids"),
        ({"background_percentage": 1.5}, "background_percentage"),
        ({"background_percentage": -0.1}, "background_percentage"),
        ({"background_percentage": "half"}, "background_percentage"),
        ({"model": "no-such-model"}, "model"),
        ({"collection": {"description": 5}}, "collection.description"),
    ],
)
def test_create_chat_rejects_bad_arguments_naming_the_field(call, ai_user, deck, change, field):
    _, token = ai_user
    data = {"card_ids": deck, "initial_message": "Why are there tides?", **change}
    with pytest.raises(CallError) as e:
        call("createChat", data, token)
    assert e.value.status == "INVALID_ARGUMENT"
    assert e.value.message.startswith(field + ":")


def test_create_chat_rejects_a_model_without_a_key(call, ai_user, deck):
    keyed = {m["id"] for m in call("listModels", {})["models"]}
    unkeyed = [m for m in ("claude-sonnet-4-6", "gpt-4.1", "gemini-2.5-flash") if m not in keyed]
    if not unkeyed:
        pytest.skip("every provider has a key in this environment")
    with pytest.raises(CallError) as e:
        call("createChat", {"card_ids": deck, "initial_message": "tides?", "model": unkeyed[0]}, ai_user[1])
    assert e.value.status == "INVALID_ARGUMENT" and "no API key" in e.value.message


def test_create_chat_is_rate_limited(call, app_db, ai_user, deck):
    uid, token = ai_user
    stamp = now()
    app_db.collection(RATE_LIMITS).document(uid).set(
        {"recent": [stamp + FULL_MINUTE_AHEAD] * 50, "day": stamp.strftime("%Y-%m-%d"), "day_tokens": 0}
    )
    with pytest.raises(CallError) as e:
        call("createChat", {"card_ids": deck, "initial_message": "tides?"}, token)
    assert e.value.status == "RESOURCE_EXHAUSTED"
    assert e.value.details["retry_after"] > 0


def _rest_get(path: str, token: str) -> int:
    host = os.environ["FIRESTORE_EMULATOR_HOST"]
    req = urllib.request.Request(
        f"http://{host}/v1/projects/{APP_PROJECT}/databases/(default)/documents/{path}",
        headers={"authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_a_chat_ranks_culls_streams_and_hides_its_background(call, app_db, ai_user, deck):
    uid, token = ai_user
    out = call(
        "createChat",
        {"card_ids": deck + ["no-such-card"], "initial_message": "Why does the sea have two tides a day?"},
        token,
    )
    assert set(out) == {"chat_id"}
    chat_id = out["chat_id"]
    assert app_db.collection(CHATS).document(chat_id).get().get("published") is False
    chat = app_db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()
    assert chat["owner"] == uid
    assert chat["card_ids"][0] == "tides"  # the obvious answer ranks first
    assert "vault" not in chat["card_ids"]  # another user's private card is culled
    assert chat["card_count_requested"] == len(deck) + 1
    assert 0 < chat["background_tokens"] <= chat["background_length"]
    assert SECRET_SENTENCE[:30] not in json.dumps(chat, default=str)

    bg = app_db.collection(CHAT_BACKGROUNDS).document(chat_id)
    text = "".join(p.get("text") for p in bg.collection(CHAT_BACKGROUND_PARTS).stream())
    assert "two tidal bulges" in text and SECRET_SENTENCE[:30] not in text

    # The owner's own client gets nothing of the background, by any path.
    assert _rest_get(f"{CHAT_BACKGROUNDS}/{chat_id}", token) == 403
    assert _rest_get(f"{CHAT_BACKGROUNDS}/{chat_id}/{CHAT_BACKGROUND_PARTS}/0000", token) == 403
    assert _rest_get(f"{CHATS}/{chat_id}", token) == 200
    assert _rest_get(f"{CHAT_PRIVATE}/{chat_id}", token) == 200

    # The answer streams through the trigger and ends complete, chunks gone.
    answer_ref = app_db.collection(CHAT_MESSAGES).document(f"{chat_id}-0001")
    answer = wait_for(
        lambda: (d := answer_ref.get().to_dict()) and d["status"] in ("complete", "failed") and d,
        timeout=90,
        what="the first answer",
    )
    assert answer["status"] == "complete", answer.get("error")
    assert "[1]" in answer["content"]
    assert "two high tides" in answer["content"] or "tidal bulges" in answer["content"]
    # the chunks are deleted right after the final write (engine.generate), not with it
    chunks = app_db.collection(CHAT_MESSAGES_STREAMING).where(filter=FieldFilter("message", "==", answer_ref.id))
    wait_for(lambda: chunks.get() == [], timeout=30, what="the answer's chunks to be deleted")

    # Follow-up through postMessage.
    reply = call("postMessage", {"chat_id": chat_id, "content": "And what pulls the oceans?"}, token)
    second = app_db.collection(CHAT_MESSAGES).document(reply["message_id"])
    done = wait_for(
        lambda: (d := second.get().to_dict()) and d["status"] in ("complete", "failed") and d,
        timeout=90,
        what="the second answer",
    )
    assert done["status"] == "complete" and done["message_index"] == 3


def test_post_message_is_refused_while_an_answer_is_pending_and_for_others(call, ai_user, sign_up, deck):
    _, token = ai_user
    chat_id = call("createChat", {"card_ids": deck, "initial_message": "Tell me about bread"}, token)["chat_id"]
    with pytest.raises(CallError) as e:
        call("postMessage", {"chat_id": chat_id, "content": "and more?"}, token)
    assert e.value.status == "FAILED_PRECONDITION"
    _, stranger = sign_up()
    with pytest.raises(CallError) as e:
        call("postMessage", {"chat_id": chat_id, "content": "hello"}, stranger)
    assert e.value.status in ("PERMISSION_DENIED", "NOT_FOUND")


def test_delete_chat_is_for_the_owner_and_removes_everything(call, app_db, ai_user, sign_up, deck):
    _, token = ai_user
    chat_id = call("createChat", {"card_ids": deck, "initial_message": "chains?"}, token)["chat_id"]
    _, stranger = sign_up()
    with pytest.raises(CallError) as e:
        call("deleteChat", {"chat_id": chat_id}, stranger)
    assert e.value.status == "PERMISSION_DENIED"
    wait_for(
        lambda: app_db.collection(CHAT_MESSAGES).document(f"{chat_id}-0001").get().get("status") == "complete",
        what="the answer",
    )
    call("deleteChat", {"chat_id": chat_id}, token)
    assert not app_db.collection(CHATS).document(chat_id).get().exists
    assert not app_db.collection(CHAT_PRIVATE).document(chat_id).get().exists
    assert not app_db.collection(CHAT_BACKGROUNDS).document(chat_id).get().exists
    assert list(app_db.collection(CHAT_BACKGROUNDS).document(chat_id).collection(CHAT_BACKGROUND_PARTS).stream()) == []
    assert app_db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", chat_id)).get() == []


def test_a_branch_re_asks_a_question_in_a_new_chat_and_is_answered(call, app_db, ai_user, sign_up, deck):
    _, token = ai_user
    source = call("createChat", {"card_ids": deck, "initial_message": "Why are there tides?"}, token)["chat_id"]
    wait_for(
        lambda: app_db.collection(CHAT_MESSAGES).document(f"{source}-0001").get().get("status") == "complete",
        timeout=90,
        what="the first answer",
    )
    _, stranger = sign_up()
    with pytest.raises(CallError) as e:
        call("branchChat", {"chat_id": source, "message_index": 0, "content": "mine?"}, stranger)
    assert e.value.status == "PERMISSION_DENIED"
    with pytest.raises(CallError) as e:
        call("branchChat", {"chat_id": source, "message_index": 1, "content": "an answer?"}, token)
    assert e.value.status == "INVALID_ARGUMENT"

    out = call("branchChat", {"chat_id": source, "message_index": 0, "content": "What pulls the oceans?"}, token)
    assert set(out) == {"chat_id"} and out["chat_id"] != source
    branch = out["chat_id"]
    answer_ref = app_db.collection(CHAT_MESSAGES).document(f"{branch}-0001")
    answer = wait_for(
        lambda: (d := answer_ref.get().to_dict()) and d["status"] in ("complete", "failed") and d,
        timeout=90,
        what="the branch's answer",
    )
    assert answer["status"] == "complete", answer.get("error")
    assert app_db.collection(CHAT_PRIVATE).document(branch).get().get("branched_from") == {
        "chat": source,
        "message_index": 0,
    }
    assert _rest_get(f"{CHAT_BACKGROUNDS}/{branch}", token) == 403  # the copy is as hidden as the original
    assert _rest_get(f"{CHATS}/{branch}", token) == 200


def test_embeddings_follow_cards_through_the_trigger(app_db, functions_base):
    ref = app_db.collection(CARDS).document("trig")
    emb = app_db.collection(CARD_EMBEDDINGS).document("trig")
    ref.set(Card("Rebasing onto another branch", "git rebase --onto moves commits.", "someone").to_dict())
    first = wait_for(lambda: (s := emb.get()).exists and s.to_dict(), what="the embedding")
    assert first["dim"] == 384 and len(first["vector"]) == 384 * 4

    ref.update({"title": "Cherry-picking a commit"})
    second = wait_for(
        lambda: (d := emb.get().to_dict()) and d["text_hash"] != first["text_hash"] and d,
        what="the recomputed embedding",
    )
    assert second["vector"] != first["vector"]

    ref.update({"updated": now()})
    # A later edit of another card acts as a marker that the trigger queue moved on.
    marker = app_db.collection(CARDS).document("marker")
    marker.set(Card("Marker", "marker card", "someone").to_dict())
    wait_for(lambda: app_db.collection(CARD_EMBEDDINGS).document("marker").get().exists, what="the marker")
    time.sleep(1)
    assert emb.get().to_dict()["updated"] == second["updated"]  # dates alone don't re-embed

    ref.delete()
    wait_for(lambda: not emb.get().exists, what="the embedding to go")


def _workers(target: str) -> list[int]:
    """Niceness of every Functions-emulator worker process of this stack (its Firestore emulator: other
    stacks on the machine run the same project) that serves `target`."""
    found = []
    for pid in stack_workers(target, APP_PROJECT):
        try:
            found.append(int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16]))  # its niceness
        except (OSError, ValueError):
            continue  # the process ended
    return found


def test_cards_are_embedded_below_the_answers_cpu_priority(call, app_db, ai_user, deck):
    _, token = ai_user
    app_db.collection(CARDS).document("nice").set(
        Card("Stashing", "git stash keeps changes aside.", "someone").to_dict()
    )
    wait_for(lambda: app_db.collection(CARD_EMBEDDINGS).document("nice").get().exists, what="the embedding")
    # An answer, so that createChat and generateAnswer have workers to look at.
    chat_id = call("createChat", {"card_ids": deck, "initial_message": "Why are there tides?"}, token)["chat_id"]
    answer_ref = app_db.collection(CHAT_MESSAGES).document(f"{chat_id}-0001")
    wait_for(lambda: (d := answer_ref.get().to_dict()) and d["status"] == "complete", timeout=90, what="the answer")
    # (a worker the emulator is starting for another test's card has not reached its first call yet)
    embedders = _workers("embedCard")
    assert 10 in embedders and max(embedders) == 10, embedders
    # The stack's own niceness, which this process shares: scripts/run-suites runs the functions tests
    # on a second stack niced a little, below the level the embedders take.
    stack = os.nice(0)
    assert stack < 10, f"the stack runs at niceness {stack}: its answers could not be seen above the embedders"
    answering = {name: _workers(name) for name in ("createChat", "generateAnswer")}
    assert all(answering.values()) and {n for found in answering.values() for n in found} == {stack}, answering
