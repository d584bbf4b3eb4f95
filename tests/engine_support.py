"""What the engine tests share: chats made ready to generate on the real
emulator, a watcher of the chunk stream as a reader sees it, and the
Anthropic SDK answered by canned responses in its wire format.

Imported by the tests as `from engine_support import ...` (pytest puts tests/
on sys.path); importing a fixture into a test module makes it that module's.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from google.cloud import firestore

from cardchat import providers
from cardchat.embeddings import get_embedder
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.providers.anthropic import AnthropicProvider
from cardchat.providers.offline import NO_CARDS, NOTE
from cardchat.repo import embeddings as emb_repo
from cardchat.schema.accounts import ANSWER_USAGE
from cardchat.schema.documents import CARDS, CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, USERS, Card, UserDoc
from cardchat.schema.messages import ChatMessage
from chat_support import write_chat
from provider_wire import Wire

ROOT = Path(__file__).resolve().parents[1]
OFFLINE_ANSWER = f"{NO_CARDS}\n\n{NOTE}"
FAKE_KEY = "sk-ant-api03-FAKEKEY0123456789abcdefghijklmnopqrstuvwxyz"
CLAUDE = next(m.id for m in MODELS.values() if m.provider == "anthropic")
SECRET_BACKGROUND = (
    "[1] Launch notes\nThe launch code for the internal project is written on the blue whiteboard in room 4."
)


def tide_notes(owner: str, n: int = 30) -> dict[str, Card]:
    """`n` near-identical notes on tides: enough on-topic cards that a follow-up's ranking
    has to choose, whatever else a test adds."""
    return {
        f"tide-{i:02d}": Card(
            f"Tide note {i}",
            f"Tides rise and fall twice a day as the moon pulls the sea; note {i} on spring and neap tides, "
            "tide tables, the harbour gate and the tidal range. " * 4,
            owner,
        )
        for i in range(n)
    }


def store_embedded(db: firestore.Client, cards: dict[str, Card]) -> list[str]:
    """`cards` written and embedded at once (no trigger runs in these tests); their ids."""
    batch = db.batch()
    for cid, card in cards.items():
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
    batch.commit()
    emb_repo.embed_and_store(db, cards, get_embedder())
    return list(cards)


TIDES = "Why do tides rise and fall twice a day?"
#: A card a follow-up (or a search during an answer) must find, beside the tide notes: the first
#: answer's background cannot hold it.
LENS = "card-lighthouse-lens"
# Longer than the room a full background leaves, so createChat's packing cannot slip it in at the end.
LENS_CARD = Card(
    "The lighthouse lens",
    "The lighthouse on the headland uses a first-order Fresnel lens, ground in Paris in 1871.\n\n"
    + "The keeper's log lists every storm, every ship that passed and every repair of the lamp. " * 12,
    "u1",
)
BREAD = {"bread": Card("Baking bread", "Sourdough needs a lively starter and a hot oven with steam.", "u1")}


def ask_tides_and_bread(db: firestore.Client, chat_id: str, question: str, model: str = OFFLINE_MODEL_ID) -> str:
    """A chat over three embedded tide notes ([1]-[3]) and a bread card ([4]) whose answer to `question`
    is ready; the stub's id. (A card its owner can no longer read would leave the background: all stored.)"""
    from cardchat.retrieval.background import fit_background

    cards = {**tide_notes("u1", 3), **BREAD}
    store_embedded(db, cards)
    bg = fit_background(list(cards.items()), 4000, "o200k_base")
    stub = f"{chat_id}-m1"
    messages = [
        (f"{chat_id}-m0", ChatMessage(chat=chat_id, message_index=0, role="user", content=question, status="complete")),
        (stub, ChatMessage(chat=chat_id, message_index=1, role="assistant", content="", status="ready", model=model)),
    ]
    write_chat(db, chat_id, messages, "u1", model, bg.tokens, bg.text, bg.card_ids)
    db.collection(USERS).document("u1").set(UserDoc(may_use_ai=True).to_dict(), merge=True)
    return stub


def make_chat(
    db: firestore.Client,
    chat_id: str = "chat1",
    *,
    owner: str = "u1",
    model: str = OFFLINE_MODEL_ID,
    history: list[tuple[str, str]] | None = None,
    background: str = "",
    background_tokens: int = 0,
    card_ids: list[str] | None = None,
) -> str:
    """A chat whose last message is an assistant stub `ready` to generate;
    returns the stub's id. `history` is (role, content) before the question."""
    turns = list(history or []) + [("user", "What do my cards say?")]
    messages = [
        (f"{chat_id}-m{i}", ChatMessage(chat=chat_id, message_index=i, role=role, content=text, status="complete"))
        for i, (role, text) in enumerate(turns)
    ]
    stub_id = f"{chat_id}-m{len(turns)}"
    messages.append(
        (
            stub_id,
            ChatMessage(
                chat=chat_id, message_index=len(turns), role="assistant", content="", status="ready", model=model
            ),
        )
    )
    write_chat(db, chat_id, messages, owner, model, background_tokens, background, card_ids)
    # admitted as createChat/postMessage admit: the owner may use the AI (the engine checks it again
    # before answering on the deployment's key: own_keys.run_key)
    db.collection(USERS).document(owner).set(UserDoc(may_use_ai=True).to_dict(), merge=True)
    return stub_id


class ChunkWatcher:
    """An on_snapshot listener on a message's chunks, as the SPA has: keeps
    every chunk it ever saw."""

    def __init__(self, db: firestore.Client, message_id: str) -> None:
        self.seen: dict[int, str] = {}
        self.present = 0
        self.lock = threading.Lock()
        query = db.collection(CHAT_MESSAGES_STREAMING).where(filter=firestore.FieldFilter("message", "==", message_id))
        self.ready = threading.Event()
        self.watch = query.on_snapshot(self._on)
        assert self.ready.wait(10)

    def _on(self, docs, changes, read_time) -> None:
        with self.lock:
            for d in docs:
                c = d.to_dict()
                self.seen.setdefault(c["index"], c["content"])
            self.present = len(docs)
        self.ready.set()

    def text(self) -> str:
        with self.lock:
            assert sorted(self.seen) == list(range(len(self.seen)))
            return "".join(self.seen[i] for i in sorted(self.seen))

    def wait_until(self, predicate, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(self):
                    return
            time.sleep(0.02)
        raise AssertionError("the listener never saw the expected chunks")

    def wait_until_streamed(self, timeout: float = 30.0) -> None:
        """Until the listener has seen a completed answer's chunks come and every one of them go.
        "None present" alone also holds before a loaded emulator delivers the first chunks: the
        text would read empty. (A failed run may write no chunk: wait on `present` there.)"""
        self.wait_until(lambda w: w.seen and w.present == 0, timeout)

    def close(self) -> None:
        self.watch.unsubscribe()


def chunks_left(db: firestore.Client) -> int:
    return len(list(db.collection(CHAT_MESSAGES_STREAMING).stream()))


def message(db: firestore.Client, message_id: str) -> dict:
    return db.collection(CHAT_MESSAGES).document(message_id).get().to_dict()


def answer_usage(db: firestore.Client, message_id: str) -> dict:
    """What only the chat's owner reads of an answer's run: the whole usage and its cost."""
    return db.collection(ANSWER_USAGE).document(message_id).get().to_dict()


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setenv("CARDCHAT_OFFLINE_PACE_MS", "2")


@pytest.fixture
def paced(monkeypatch):
    monkeypatch.setenv("CARDCHAT_OFFLINE_PACE_MS", "40")


@pytest.fixture
def anthropic_wire(monkeypatch) -> Wire:
    """The Anthropic SDK answered by canned responses (append them to `.responses`)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    wire = Wire()
    client = wire.client()
    monkeypatch.setitem(providers.PROVIDERS, "anthropic", lambda: AnthropicProvider(client))
    return wire


class Renewals:
    """generate's sleep: records each pause and when the lease was renewed."""

    def __init__(self, db, message_id: str) -> None:
        self.db, self.message_id = db, message_id
        self.pauses: list[float] = []
        self.leases: list = []
        self.waits: list = []

    def __call__(self, seconds: float) -> None:
        self.pauses.append(seconds)
        msg = message(self.db, self.message_id)
        self.leases.append(msg["lease_expires"])
        self.waits.append(msg.get("provider_wait"))
