"""createChat's domain on the Firestore emulator: culling, the budget for every
model family, the atomic write. (The endpoint's HTTP contract is in
test_endpoints.py.)"""

from __future__ import annotations

import random

import numpy as np
import pytest
from google.cloud.firestore import FieldFilter

from benchmarks.decks import GIT_WORDS, DeckWriter, unit_vector, words
from cardchat.chat import create as chats
from cardchat.errors import InvalidArgument
from cardchat.llm import models
from cardchat.parsing import requests
from cardchat.repo.chats import read_background
from cardchat.repo.embeddings import clear_cache as clear_vector_cache
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, CHAT_MESSAGES, CHAT_PRIVATE, CHATS, Card

pytestmark = pytest.mark.emulator

KEYS = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"}


def seed_deck(db, owner: str, n: int, seed: int = 7) -> list[str]:
    """n cards of varied length with stored (random) embeddings, so the test
    measures packing, not embedding speed."""
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    deck, ids = DeckWriter(db), []
    for i in range(n):
        card = Card(f"Card {i}", words(rng, 40, 900, GIT_WORDS) + ".", owner, visibility="private")
        cid = f"c{i:05d}"
        deck.card(cid, card, unit_vector(np_rng))
        ids.append(cid)
    deck.close()
    return ids


@pytest.fixture(scope="module")
def big_deck_db(firestore_host):
    from conftest import PROJECT, _clear_firestore
    from google.cloud import firestore

    _clear_firestore(firestore_host, PROJECT)
    db = firestore.Client(project=PROJECT)
    ids = seed_deck(db, "owner", 600)
    yield db, ids
    db.close()


@pytest.mark.parametrize(
    "model_id, pct",
    [("offline-extractive", 0.6), ("claude-sonnet-4-6", 0.1), ("gpt-4.1", 0.02), ("gemini-2.5-flash", 0.02)],
)
def test_background_fills_at_least_97_percent_and_never_more(big_deck_db, model_id, pct):
    db, ids = big_deck_db
    req = requests.create_chat(
        {
            "card_ids": ids,
            "initial_message": "how do I rebase a branch?",
            "model": model_id,
            "background_percentage": pct,
        },
        env=KEYS,
    )
    result = chats.create_chat(db, "owner", req)
    chat = db.collection(CHAT_PRIVATE).document(result.chat_id).get().to_dict()
    spec = models.MODELS[model_id]
    assert chat["background_length"] == int(pct * spec.context_window)
    assert chat["background_tokens"] <= chat["background_length"]
    assert chat["background_tokens"] >= 0.97 * chat["background_length"]
    assert len(chat["card_ids"]) < len(ids)  # the budget, not the deck, was the limit
    # the stored text really is that long by the model's own count
    from cardchat.llm.tokens import count_tokens

    assert count_tokens([read_background(db, result.chat_id)], spec.tokenizer)[0] <= chat["background_length"]


def test_invisible_and_missing_cards_leave_no_trace(db):
    db.collection(CARDS).document("mine").set(Card("Tides", "The moon pulls the sea.", "me").to_dict())
    db.collection(CARDS).document("theirs").set(Card("Secret", "Mallory's vault code.", "them").to_dict())
    db.collection(CARDS).document("shared").set(Card("Shared", "Shared with me.", "them", viewers=["me"]).to_dict())
    db.collection(CARDS).document("open").set(Card("Open", "Public card.", "them", visibility="public").to_dict())
    req = requests.create_chat(
        {"card_ids": ["mine", "theirs", "ghost", "shared", "open"], "initial_message": "what pulls the sea?"}, env={}
    )
    result = chats.create_chat(db, "me", req)
    chat = db.collection(CHAT_PRIVATE).document(result.chat_id).get().to_dict()
    assert sorted(chat["card_ids"]) == ["mine", "open", "shared"]
    assert chat["card_count_requested"] == 5
    # what any reader of the chat sees: no card but the public one, no collection
    public = db.collection(CHATS).document(result.chat_id).get().to_dict()
    assert public["public_citations"] == {}  # the public card too: no answer cites it yet
    assert set(public) == {
        "owner",
        "title",
        "model",
        "public_citations",
        "published",
        "created",
        "last_updated",
        "message_count",
        "look_further",
    }  # and not whom it is shared with: that is in chat_viewers, which visitors cannot read
    assert "Mallory" not in read_background(db, result.chat_id)
    msgs = {
        d.id: d.to_dict()
        for d in db.collection(CHAT_MESSAGES).where(filter=FieldFilter("chat", "==", result.chat_id)).stream()
    }
    assert [m["role"] for m in sorted(msgs.values(), key=lambda m: m["message_index"])] == ["user", "assistant"]
    stub = msgs[f"{result.chat_id}-0001"]
    assert stub["status"] == "ready" and stub["content"] == ""


def test_cards_without_embeddings_are_embedded_on_the_spot(db):
    db.collection(CARDS).document("a").set(Card("Sourdough", "Feed the starter daily.", "me").to_dict())
    db.collection(CARDS).document("b").set(Card("Tides", "The moon's gravity raises tides.", "me").to_dict())
    req = requests.create_chat({"card_ids": ["a", "b"], "initial_message": "why are there tides?"}, env={})
    result = chats.create_chat(db, "me", req)
    chat = db.collection(CHAT_PRIVATE).document(result.chat_id).get().to_dict()
    assert chat["card_ids"][0] == "b" and chat["cards_unranked"] == 0
    assert db.collection(CARD_EMBEDDINGS).document("a").get().exists


def test_on_the_spot_embedding_is_bounded_and_goes_to_the_likeliest_cards_first(db, monkeypatch):
    monkeypatch.setattr(chats, "EMBED_ON_THE_SPOT", 4)
    monkeypatch.setattr(chats, "EMBED_BATCH", 2)
    monkeypatch.setattr(chats, "EMBED_BUDGET_S", 600.0)  # bounded by the count here, whatever the machine's load
    clear_vector_cache()  # vectors cached by earlier tests would be found without being written here
    ids = [f"filler{i:02d}" for i in range(18)] + ["moon", "tides"]  # the relevant ones asked last
    for i in ids[:18]:
        db.collection(CARDS).document(i).set(Card(f"Recipe {i}", "Knead the dough and let it rest.", "me").to_dict())
    db.collection(CARDS).document("moon").set(Card("Moon", "The moon's gravity pulls the oceans.", "me").to_dict())
    db.collection(CARDS).document("tides").set(Card("Tides", "Why tides rise twice a day.", "me").to_dict())
    req = requests.create_chat(
        {"card_ids": ids, "initial_message": "why are there tides and what does the moon do?"}, env={}
    )

    chat = db.collection(CHAT_PRIVATE).document(chats.create_chat(db, "me", req).chat_id).get().to_dict()
    embedded = {d.id for d in db.collection(CARD_EMBEDDINGS).stream()}
    assert {"moon", "tides"} <= embedded and len(embedded) == 4
    assert chat["cards_unranked"] == 16
    assert set(chat["card_ids"][:2]) == {"moon", "tides"}

    # No time at all (the embedder busy with a backfill): no card waits for
    # the embedder, not even a first batch; BM25 alone still ranks the
    # likeliest cards first (waiting for the embedder made createChat slow right after start).
    db.recursive_delete(db.collection(CARD_EMBEDDINGS))
    clear_vector_cache()
    monkeypatch.setattr(chats, "EMBED_BUDGET_S", 0.0)
    chat = db.collection(CHAT_PRIVATE).document(chats.create_chat(db, "me", req).chat_id).get().to_dict()
    assert not list(db.collection(CARD_EMBEDDINGS).stream())
    assert chat["cards_unranked"] == 20
    assert set(chat["card_ids"][:2]) == {"moon", "tides"}


def test_parse_request_errors():
    with pytest.raises(InvalidArgument, match=r"^model:"):
        requests.create_chat({"card_ids": ["a"], "initial_message": "q", "model": "gpt-4.1"}, env={})
    assert requests.create_chat({"card_ids": ["a", "a"], "initial_message": " q "}, env={}).card_ids == ["a"]


def test_a_full_background_share_still_leaves_room_for_the_question_and_answer():
    from cardchat.chat.history_window import output_reserve
    from cardchat.llm.tokens import count_tokens

    spec = models.MODELS["offline-extractive"]
    question = "why do tides happen? " * 200
    budget = chats.background_budget(spec, 1.0, question)
    room = spec.context_window - output_reserve(spec) - count_tokens([question], spec.tokenizer)[0]
    assert 0 < budget < room
    assert chats.background_budget(spec, 0.5, "short") == int(0.5 * spec.context_window)
