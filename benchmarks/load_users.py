"""Simulated users for the load benchmark: each signs up, gets a few cards
of the demo deck (vectors stored beside them, as an embedded deck has), then
asks as the SPA does, through the callables of the Functions emulator:
createChat, and a follow-up with postMessage each time the answer before it
has ended. A listener on the chat's messages and chunks (what the SPA reads)
says when each answer's first chunk was committed and when it ended."""

from __future__ import annotations

import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardchat.access.permissions import grant_ai
from cardchat.admin.demo_deck import build_deck
from cardchat.embeddings import get_embedder, pack
from cardchat.embeddings.text import embeddable_and_hash
from cardchat.ids import first_message_id
from cardchat.schema.documents import (
    CARD_EMBEDDINGS,
    CARDS,
    CHAT_MESSAGES,
    CHAT_MESSAGES_STREAMING,
    Card,
    CardEmbedding,
)

QUESTIONS = [
    "how do I move my commits onto a different base?",
    "what does git stash pop do?",
    "how can I see which branches are merged?",
    "how do I undo the last commit?",
    "what is a detached HEAD?",
    "how do I list remote branches?",
    "how do I squash commits?",
    "what does cherry-pick do?",
]
#: How long an answer may take before the user gives up on it (counted as an error).
ANSWER_PATIENCE_S = 200.0


@dataclass
class Answer:
    """One Send and what the user saw of it (time.time() seconds)."""

    sent: float
    first_chunk: float | None = None
    ended: float | None = None
    status: str = "sent"
    error: str | None = None  # a callable's error code, or a failed answer's headline

    @property
    def to_first(self) -> float | None:
        return None if self.first_chunk is None else self.first_chunk - self.sent

    @property
    def to_complete(self) -> float | None:
        return None if self.ended is None or self.status != "complete" else self.ended - self.sent


def functions_base(project: str) -> str:
    return f"http://{os.environ['CARDCHAT_FUNCTIONS_HOST']}/{project}/us-central1"


def call(base: str, fn: str, data: dict[str, Any], token: str) -> tuple[dict[str, Any] | None, str | None]:
    """A callable as the SPA calls it (`base`: functions_base): its result, or its error's code."""
    req = urllib.request.Request(
        f"{base}/{fn}",
        data=json.dumps({"data": data}).encode(),
        method="POST",
        headers={"content-type": "application/json", "authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=180) as r:
            out = json.loads(r.read())
    except urllib.error.HTTPError as e:
        out = json.loads(e.read() or b"{}")
    except (urllib.error.URLError, TimeoutError) as e:
        return None, f"{fn}: {type(e).__name__}"
    if "error" in out:
        return None, f"{fn}: {out['error'].get('status', 'UNKNOWN')}"
    return out.get("result") or {}, None


def sign_up(db: Any, auth_host: str) -> tuple[str, str]:
    """A fresh Auth emulator user with AI use granted: (uid, ID token)."""
    body = {"email": f"load-{uuid.uuid4().hex[:10]}@cardchat.test", "password": "load-pass", "returnSecureToken": True}
    req = urllib.request.Request(
        f"http://{auth_host}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        out = json.loads(r.read())
    grant_ai(db, out["localId"], True)
    return out["localId"], out["idToken"]


class Deck:
    """A few demo-deck cards, embedded once: every user gets copies under ids of their own."""

    def __init__(self, n: int) -> None:
        self.cards = [c for c in build_deck() if c["id"].startswith("git-")][:n]
        embedder = get_embedder()
        self.model, self.dim = embedder.model_id, embedder.dim
        texts = [embeddable_and_hash(c["title"], c["body"]) for c in self.cards]
        self.hashes = [h for _, h in texts]
        self.vectors = [pack(np.asarray(v, np.float32)) for v in embedder.embed([t for t, _ in texts])]

    def give(self, db: Any, uid: str) -> list[str]:
        """The user's copies; vectors first, so that embedCard finds each card fresh."""
        ids = [f"{uid}-{c['id']}" for c in self.cards]
        batch = db.batch()
        for cid, vec, digest in zip(ids, self.vectors, self.hashes):
            batch.set(
                db.collection(CARD_EMBEDDINGS).document(cid),
                CardEmbedding(self.model, self.dim, vec, digest, owner=uid).to_dict(),
            )
        batch.commit()
        batch = db.batch()
        for cid, c in zip(ids, self.cards):
            batch.set(db.collection(CARDS).document(cid), Card(title=c["title"], body=c["body"], owner=uid).to_dict())
        batch.commit()
        return ids


class ChatListener:
    """A chat's messages and chunks as its owner's SPA listens to them; subclasses say what they keep."""

    def __init__(self, db: Any, chat_id: str) -> None:
        from google.cloud import firestore

        self._lock = threading.Lock()
        where = firestore.FieldFilter("chat", "==", chat_id)
        self._w = [
            db.collection(CHAT_MESSAGES).where(filter=where).on_snapshot(self._messages),
            db.collection(CHAT_MESSAGES_STREAMING).where(filter=where).on_snapshot(self._chunks),
        ]

    def _messages(self, docs: Any, changes: Any, read_time: Any) -> None:
        raise NotImplementedError

    def _chunks(self, docs: Any, changes: Any, read_time: Any) -> None:
        raise NotImplementedError

    def close(self) -> None:
        for w in self._w:
            w.unsubscribe()


class ChatWatch(ChatListener):
    """One chat's answers as its owner's SPA sees them, by message index."""

    def __init__(self, db: Any, chat_id: str) -> None:
        self.status: dict[int, tuple[str, float, str | None]] = {}  # index -> (status, update time, error)
        self.first_chunk: dict[str, float] = {}  # message id -> first chunk's commit time
        super().__init__(db, chat_id)

    def _messages(self, docs: Any, changes: Any, read_time: Any) -> None:
        with self._lock:
            for d in docs:
                m = d.to_dict()
                self.status[m.get("message_index", -1)] = (m.get("status"), d.update_time.timestamp(), m.get("error"))

    def _chunks(self, docs: Any, changes: Any, read_time: Any) -> None:
        with self._lock:
            for d in docs:
                message, at = d.to_dict().get("message"), d.create_time.timestamp()
                self.first_chunk[message] = min(self.first_chunk.get(message, at), at)

    def follow(self, answer: Answer, message_id: str, index: int) -> None:
        """Fills `answer` in as its message `index` (id `message_id`) streams and ends."""
        deadline = time.monotonic() + ANSWER_PATIENCE_S
        while time.monotonic() < deadline:
            with self._lock:
                status, at, error = self.status.get(index, ("sent", 0.0, None))
                answer.first_chunk = self.first_chunk.get(message_id, answer.first_chunk)
            if status in ("complete", "failed", "stopped"):
                answer.status, answer.ended, answer.error = status, at, error and f"answer {status}: {error}"
                return
            time.sleep(0.02)
        answer.status, answer.error = "timeout", "answer: not ended in time"


#: A user's pause before each follow-up, at most: they read the answer first. Drawn at random, it also
#: spreads the posts over the Cloud Tasks emulator's once-a-second look at an idle queue (a deployment's
#: queue dispatches at once), so every phase meets that wait's average, never one phase of it.
THINK_S = 1.0


class User(threading.Thread):
    """Asks `rounds` times: a new chat, then `follow_ups` follow-ups, each after the answer before it ended
    and a pause of up to THINK_S."""

    def __init__(
        self, db: Any, token: str, cards: list[str], model: str, rounds: int, follow_ups: int, start: threading.Barrier
    ) -> None:
        super().__init__(daemon=True)
        self.db, self.token, self.cards, self.model = db, token, cards, model
        self.base = functions_base(db.project)
        self.rounds, self.follow_ups, self.start_together = rounds, follow_ups, start
        self.answers: list[Answer] = []

    def run(self) -> None:
        self.start_together.wait()
        for r in range(self.rounds):
            self._chat(r)

    def _chat(self, r: int) -> None:
        answer = Answer(sent=time.time())
        self.answers.append(answer)
        q = QUESTIONS[r % len(QUESTIONS)]
        made, error = call(
            self.base, "createChat", {"card_ids": self.cards, "initial_message": q, "model": self.model}, self.token
        )
        if made is None:
            answer.status, answer.error = "refused", error
            return
        chat_id = made["chat_id"]
        watch = ChatWatch(self.db, chat_id)
        try:
            watch.follow(answer, first_message_id(chat_id, 1), 1)
            for k in range(1, self.follow_ups + 1):
                if answer.status != "complete":
                    return  # the SPA refuses a post after an unfinished answer too
                time.sleep(random.uniform(0, THINK_S))
                answer = Answer(sent=time.time())
                self.answers.append(answer)
                posted, error = call(
                    self.base,
                    "postMessage",
                    {"chat_id": chat_id, "content": QUESTIONS[(r + k) % len(QUESTIONS)]},
                    self.token,
                )
                if posted is None:
                    answer.status, answer.error = "refused", error
                    return
                watch.follow(answer, posted["message_id"], 2 * k + 1)
        finally:
            watch.close()


def errors_by_code(answers: list[Answer]) -> Counter[str]:
    return Counter(a.error for a in answers if a.error)
