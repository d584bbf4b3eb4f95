"""Send → first visible text through the whole stack, stage by stage.

Runs under `scripts/bench pipeline`, which starts the Auth, Firestore and
Functions emulators with ANTHROPIC_BASE_URL pointing at a local fake of
Anthropic's streaming Messages API (benchmarks/fake_provider.py: real SSE
wire format, first token 300 ms after the request). A signed-up user with AI
access creates chats over 300 demo-deck cards and asks follow-ups, through the
callables as the SPA calls them, then the same over 10,000 synthetic cards with
stored vectors (BENCH_PIPELINE_BIG; 0 skips them); a Firestore listener (what the SPA does)
sees the first chunk. Stages, from the documents' own commit times and the
fake server's clock (one machine, one clock):

  call      Send → the stub is committed (auth, checks, writes)
  trigger   stub committed → a run has taken the answer (event delivery, its transaction)
  read      taken → the provider is asked (chat, background and history reads, SDK setup)
  search    with look_further on: the model's search_cards call (the fake's 300 ms), the search
            over the chat's cards, the provider asked again with its result
  provider  asked → first token sent (the fake's fixed 300 ms)
  write     first token → first chunk committed
  listener  first chunk committed → the listener has it

The offline answerer is measured the same way (its "provider" stage is
composing the first sentence; read and provider are reported together).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from typing import Any

import numpy as np

from benchmarks.common import sized, triggers_paused
from benchmarks.decks import seed_owner
from benchmarks.fake_provider import FakeAnthropic
from benchmarks.load_users import QUESTIONS, ChatListener
from cardchat.access.permissions import grant_ai
from cardchat.admin.demo_deck import build_deck
from cardchat.embeddings import get_embedder, pack
from cardchat.embeddings.text import embeddable_and_hash
from cardchat.llm.models import OFFLINE_MODEL_ID
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card, CardEmbedding

KEYED = "claude-haiku-4-5"
#: A follow-up in a 10,000-card chat, Send → first chunk with the fake provider.
GOAL_P50_MS, GOAL_P95_MS = 1000, 1500
STAGES = ["call", "trigger", "read", "search", "provider", "write", "listener"]


def _post(url: str, body: dict, token: str | None = None) -> dict:
    headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())


class Watch(ChatListener):
    """The chat's messages and chunks as a client sees them, with when."""

    def __init__(self, db: Any, chat_id: str) -> None:
        self.taken: dict[str, float] = {}  # message id -> commit time of the run taking it
        self.created: dict[str, float] = {}  # message id -> stub commit time
        self.first_chunk: dict[str, tuple[float, float]] = {}  # message id -> (commit time, seen)
        self.done: set[str] = set()
        super().__init__(db, chat_id)

    def _messages(self, docs: Any, changes: Any, read_time: Any) -> None:
        with self._lock:
            for d in docs:
                m = d.to_dict()
                self.created.setdefault(d.id, d.create_time.timestamp())
                if m.get("status") == "streaming":
                    self.taken.setdefault(d.id, d.update_time.timestamp())
                if m.get("status") in ("complete", "failed"):
                    self.done.add(d.id)

    def _chunks(self, docs: Any, changes: Any, read_time: Any) -> None:
        now = time.time()
        with self._lock:
            for d in docs:
                self.first_chunk.setdefault(d.to_dict()["message"], (d.create_time.timestamp(), now))

    def wait(self, message_id: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while message_id not in self.done and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # let the chunk deletes land before the next send


def _user(db: Any, auth: str) -> tuple[str, str]:
    out = _post(
        f"http://{auth}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key",
        {"email": f"bench-{uuid.uuid4().hex[:8]}@cardchat.test", "password": "bench-pass", "returnSecureToken": True},
    )
    grant_ai(db, out["localId"], True)
    return out["localId"], out["idToken"]


def _cards(db: Any, uid: str) -> list[str]:
    deck = [c for c in build_deck() if c["id"].startswith("git-")][: sized(300, 5)]
    embedder = get_embedder()
    cards = [(f"{uid}-{c['id']}", Card(title=c["title"], body=c["body"], owner=uid)) for c in deck]
    texts = [embeddable_and_hash(c.title, c.body) for _, c in cards]
    vectors = embedder.embed([t for t, _ in texts])
    batch = db.batch()
    for (cid, _), vec, (_, digest) in zip(cards, vectors, texts):  # embeddings first: embedCard has nothing to do
        batch.set(
            db.collection(CARD_EMBEDDINGS).document(cid),
            CardEmbedding(embedder.model_id, embedder.dim, pack(np.asarray(vec, np.float32)), digest).to_dict(),
        )
    batch.commit()
    batch = db.batch()
    for cid, card in cards:
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
    batch.commit()
    return [cid for cid, _ in cards]


def _send(
    db: Any,
    fn: str,
    token: str,
    model: str,
    chat_id: str | None,
    card_ids: list[str],
    q: str,
    fake: FakeAnthropic,
    look_further: bool = False,
) -> tuple[str, dict[str, float]]:
    """One Send; returns the chat id and its stage times in ms."""
    base = f"http://{os.environ['CARDCHAT_FUNCTIONS_HOST']}/{db.project}/us-central1"
    watch = Watch(db, chat_id) if chat_id else None
    t0 = time.time()
    if chat_id is None:
        ask = {"card_ids": card_ids, "initial_message": q, "model": model, "look_further": look_further}
        out = _post(f"{base}/createChat", {"data": ask}, token)
        chat_id = out["result"]["chat_id"]
        watch = Watch(db, chat_id)  # the chat id is known only now; commit times are still exact
    else:
        out = _post(f"{base}/postMessage", {"data": {"chat_id": chat_id, "content": q}}, token)
    if "error" in out:
        raise RuntimeError(f"{fn}: {out['error']}")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pending = [m for m in watch.created if m not in watch.done]
        if pending and pending[-1] in watch.first_chunk:
            break
        time.sleep(0.01)
    stub = max(
        (m for m in watch.created if m in watch.first_chunk and m in watch.taken), key=lambda m: watch.created[m]
    )
    watch.wait(stub)
    watch.close()
    created, taken = watch.created[stub], watch.taken[stub]
    chunk_commit, seen = watch.first_chunk[stub]
    asked, first_token = next(((a, f) for a, f in reversed(fake.calls) if a >= taken), (None, None))
    searched = next((a for a, _ in fake.searches if a >= taken), None)
    ms = {
        "total": seen - t0,
        "call": created - t0,
        "trigger": taken - created,
        "write": chunk_commit - (first_token or taken),
        "listener": seen - chunk_commit,
    }
    if asked is not None:
        ms.update(read=(searched or asked) - taken, provider=first_token - asked)
        if searched is not None:
            ms["search"] = asked - searched
    else:
        ms["read+compose"] = chunk_commit - taken
        ms.pop("write")
    return chat_id, {k: v * 1000 for k, v in ms.items()}


def _deck_unembedded(db: Any, uid: str) -> list[str]:
    """The whole demo deck as the user's cards, none embedded yet (as right
    after scripts/dev's import), written with background triggers paused."""
    with triggers_paused():
        ids = []
        for start in range(0, len(deck := build_deck()[: sized(None, 5)]), 400):
            batch = db.batch()
            for c in deck[start : start + 400]:
                cid = f"{uid}-deck-{c['id']}"
                batch.set(
                    db.collection(CARDS).document(cid), Card(title=c["title"], body=c["body"], owner=uid).to_dict()
                )
                ids.append(cid)
            batch.commit()
    return ids


def _big_deck(db: Any, uid: str, n: int) -> list[str]:
    """`n` synthetic cards of the user's with stored vectors and their retrieval index, as after an
    embedded import (benchmarks/decks.py), written with background triggers paused."""
    with triggers_paused():
        ids = seed_owner(db, n, uid)
    rebuild(db, uid)
    return ids


def _big_case(db: Any, token: str, uid: str, fake: FakeAnthropic, n: int) -> list[str]:
    """Chats over BENCH_PIPELINE_BIG cards (10,000), their background half the model's window: the
    follow-up's read stage re-checks the packed cards and ranks the whole collection again."""
    size = int(os.environ.get("BENCH_PIPELINE_BIG", sized("10000", "40")))
    if size <= 0:
        return []
    ids = _big_deck(db, uid, size)
    series = _series(db, token, KEYED, ids, fake, n)
    return [
        _line(f"{size:,} cards, first question", series["first"]),
        _line(f"{size:,} cards, follow-up", series["follow"]),
        _queue_free(f"{size:,} cards, follow-up", series["follow"]),
    ]


def _queue_free(label: str, rows: list[dict[str, float]]) -> str:
    """Send → first chunk without the trigger stage, most of which is the Cloud Tasks emulator looking at
    an idle queue once a second (a deployed queue dispatches at once): ours alone, as if the run took the
    answer the moment its stub landed (a deployed dispatch and the take add a little to it)."""
    totals = sorted(r["total"] - r["trigger"] for r in rows)
    p95 = totals[min(len(totals) - 1, round(0.95 * (len(totals) - 1)))]
    return (
        f"{label + ', less trigger':26s} p50 {statistics.median(totals):5.0f} ms  p95 {p95:5.0f} ms"
        f"   (goals at 10,000 cards: p50 ≤ {GOAL_P50_MS}, p95 ≤ {GOAL_P95_MS}, with and without the queue's wait)"
    )


def _backfill_case(db: Any, token: str, uid: str, fake: FakeAnthropic, n: int) -> list[str]:
    """createChat over the whole unembedded deck and Send → first text while
    `cardchat backfill --gentle` runs (scripts/dev's first minutes)."""
    ids = _deck_unembedded(db, uid)
    backfill = subprocess.Popen(
        [sys.executable, "-m", "cardchat", "backfill", "--gentle", "--project", db.project],
        cwd=os.path.join(os.path.dirname(__file__), "..", "functions"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(sized(5, 1))  # the backfill has loaded its model and is embedding
        # warmed on the deck first, as scripts/dev's warm-up does before it prints the URL
        series = _series(db, token, OFFLINE_MODEL_ID, ids, fake, n)
        still = backfill.poll() is None
    finally:
        backfill.terminate()
        backfill.wait(30)
    calls = [r["call"] for r in series["first"]]
    return [
        _line("backfill running, first question", series["first"]),
        _line("backfill running, follow-up", series["follow"]),
        f"{'':26s} createChat over {len(ids)} cards (Send → chat written) p50 {statistics.median(calls):.0f} ms, "
        f"max {max(calls):.0f} ms; backfill {'still running' if still else 'finished'} at the end",
    ]


def _series(
    db: Any,
    token: str,
    model: str,
    cards: list[str],
    fake: FakeAnthropic,
    n: int,
    warm: bool = True,
    look_further: bool = False,
) -> dict[str, list]:
    """`n` chats' first question and one follow-up each; `look_further`: the chats' model searches
    their cards once per answer (the fake calls search_cards when it is offered)."""
    out: dict[str, list] = {"first": [], "follow": []}
    if warm:  # warm the instances: createChat's, and generateAnswer's for a follow-up (its ranking's caches)
        chat = _send(db, "createChat", token, model, None, cards, QUESTIONS[0], fake)[0]
        time.sleep(2.0)
        _send(db, "postMessage", token, model, chat, cards, QUESTIONS[1], fake)
    for i in range(n):
        q = QUESTIONS[i % len(QUESTIONS)]
        chat, ms = _send(db, "createChat", token, model, None, cards, q, fake, look_further)
        out["first"].append(ms)
        # A user reads the first answer before asking again; meanwhile the
        # first answer's run writes the chat's title (another model call),
        # which the emulator, one invocation at a time, would make us queue behind.
        time.sleep(2.0)
        out["follow"].append(
            _send(db, "postMessage", token, model, chat, cards, QUESTIONS[(i + 3) % len(QUESTIONS)], fake)[1]
        )
    return out


def _line(label: str, rows: list[dict[str, float]]) -> str:
    totals = [r["total"] for r in rows]
    p95 = sorted(totals)[min(len(totals) - 1, round(0.95 * (len(totals) - 1)))]
    keys = [k for k in STAGES + ["read+compose"] if k in rows[0]]
    parts = " · ".join(f"{k} {statistics.median(r[k] for r in rows):.0f}" for k in keys)
    return f"{label:26s} p50 {statistics.median(totals):5.0f} ms  p95 {p95:5.0f} ms   [{parts}]"


def run(db: Any) -> list[str]:
    port = int(os.environ.get("CARDCHAT_FAKE_PROVIDER_PORT", "7090"))
    n = int(os.environ.get("BENCH_PIPELINE_RUNS", sized("6", "1")))
    uid, token = _user(db, os.environ["FIREBASE_AUTH_EMULATOR_HOST"])
    cards = _cards(db, uid)
    lines = [
        f"Send → first chunk seen by a listener, ms, {n} runs each (medians per stage in brackets)",
        "goals: fake provider p50 ≤ 800 ms (its 300 ms + 500 ms of ours); offline p50 ≤ 1500 ms, "
        "p95 ≤ 3000 ms (also with the backfill running); createChat during the backfill ≤ 1000 ms",
    ]
    with FakeAnthropic(port) as fake:
        for model, label in ((KEYED, "fake Anthropic (300 ms)"), (OFFLINE_MODEL_ID, "offline answerer")):
            series = _series(db, token, model, cards, fake, n)
            lines.append(_line(f"{label}, first question", series["first"]))
            lines.append(_line(f"{label}, follow-up", series["follow"]))
        searching = _series(db, token, KEYED, cards, fake, n, warm=False, look_further=True)
        lines.append(_line("fake Anthropic, one search, first question", searching["first"]))
        lines.append(_line("fake Anthropic, one search, follow-up", searching["follow"]))
        lines += _big_case(db, token, uid, fake, n)
        if os.environ.get("BENCH_PIPELINE_BACKFILL", "1") == "1":
            lines += _backfill_case(db, token, uid, fake, n)
    return lines
