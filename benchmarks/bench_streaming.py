"""Streaming write cost and visible latency: the engine vs one write per token.

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 functions/venv/bin/python -m benchmarks.bench_streaming

A paced token source (default 1,000 tokens at 50 tokens/s, about 20 s;
BENCH_STREAM_TOKENS / BENCH_STREAM_RATE override, BENCH_QUICK=1 runs 200 at
100/s) answers through the real `engine.generate` — take, chunk
transactions, final write, chunk deletes — and then through a naive writer
that sets one chunk document per token. Every write that reaches the
emulator is counted at the client's commit call, by collection; an
on_snapshot listener (what the SPA does) times each token from the moment it
is produced to the moment a reader sees it. Writes go into the emulator
under chat ids prefixed `bench-`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks.common import tiny
from cardchat import providers
from cardchat.generation import engine
from cardchat.llm.models import OFFLINE_MODEL_ID
from cardchat.repo.chats import delete_chat, write_new_chat
from cardchat.schema.documents import CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, Chat, ChatBackground, ChatPrivate
from cardchat.schema.messages import AnswerTimings, ChatMessage, StreamChunk, Usage

WORDS = [
    "the",
    "tide",
    "rises",
    "twice",
    "a",
    "day",
    "because",
    "the",
    "moon",
    "pulls",
    "the",
    "oceans",
    "into",
    "two",
    "bulges",
    "while",
    "the",
    "earth",
    "turns",
    "beneath",
    "them",
    "and",
    "spring",
    "tides",
    "follow",
    "new",
    "and",
    "full",
    "moons",
]


def _settings() -> tuple[int, float]:
    if os.environ.get("BENCH_QUICK") == "1":
        return 200, 100.0
    if tiny():
        return 20, 200.0
    return int(os.environ.get("BENCH_STREAM_TOKENS", "1000")), float(os.environ.get("BENCH_STREAM_RATE", "50"))


def _tokens(n: int) -> list[str]:
    return [(" " if i else "") + WORDS[i % len(WORDS)] for i in range(n)]


class PacedSource:
    """A provider that emits `tokens` at `rate` per second and records when
    each one was produced."""

    def __init__(self, tokens: list[str], rate: float) -> None:
        self.tokens = tokens
        self.rate = rate
        self.emitted: list[float] = []

    def stream(
        self, spec: Any, messages: Any, system: str, max_tokens: int, search: Any = None
    ) -> Iterator[str | Usage]:
        start = time.monotonic()
        for i, token in enumerate(self.tokens):
            delay = start + i / self.rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.emitted.append(time.monotonic())
            yield token
        yield Usage(input_tokens=10, output_tokens=len(self.tokens))


class WriteCounter:
    """Counts the documents each commit writes or deletes, by collection, at
    the Firestore client's own commit call (batches and transactions alike)."""

    def __init__(self, db: Any) -> None:
        self.api = db._firestore_api
        self.by_collection: dict[str, int] = {}
        self.lock = threading.Lock()

    @contextmanager
    def counting(self) -> Iterator[WriteCounter]:
        original = self.api.commit

        def commit(*args: Any, **kwargs: Any) -> Any:
            request = kwargs.get("request") or (args[0] if args else {})
            writes = request.get("writes", []) if isinstance(request, dict) else list(request.writes)
            with self.lock:
                for w in writes:
                    name = w.delete or w.update.name
                    collection = name.split("/documents/", 1)[1].rsplit("/", 2)[-2]
                    self.by_collection[collection] = self.by_collection.get(collection, 0) + 1
            return original(*args, **kwargs)

        self.api.commit = commit
        try:
            yield self
        finally:
            del self.api.commit  # back to the class's method

    @property
    def total(self) -> int:
        return sum(self.by_collection.values())


class Listener:
    """The SPA's view: every chunk of a message and when it first appeared."""

    def __init__(self, db: Any, message_id: str) -> None:
        from google.cloud import firestore

        self.first_seen: dict[int, tuple[float, str]] = {}
        self.present = 0
        self._lock = threading.Lock()
        self._ready = threading.Event()
        query = db.collection(CHAT_MESSAGES_STREAMING).where(filter=firestore.FieldFilter("message", "==", message_id))
        self._watch = query.on_snapshot(self._on)
        self._ready.wait(10)

    def _on(self, docs: Any, changes: Any, read_time: Any) -> None:
        now = time.monotonic()
        with self._lock:
            for d in docs:
                c = d.to_dict()
                self.first_seen.setdefault(c["index"], (now, c["content"]))
            self.present = len(docs)
        self._ready.set()

    def settle(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.present:
            time.sleep(0.02)
        self._watch.unsubscribe()

    def token_latencies(self, tokens: list[str], emitted: list[float]) -> list[float]:
        """Seconds from each token's production to the first snapshot holding
        the chunk that completes it."""
        ends, pos = [], 0
        for t in tokens:
            pos += len(t)
            ends.append(pos)
        seen, start = [], 0
        for i in sorted(self.first_seen):
            when, text = self.first_seen[i]
            start += len(text)
            seen.append((start, when))
        out, j = [], 0
        for end, produced in zip(ends, emitted):
            while j < len(seen) and seen[j][0] < end:
                j += 1
            if j < len(seen):
                out.append(seen[j][1] - produced)
        return out


def _stub(db: Any, chat_id: str) -> str:
    stub = f"{chat_id}-a1"
    chat = Chat(owner="bench-user", title="bench", model=OFFLINE_MODEL_ID, message_count=2)
    private = ChatPrivate(
        owner="bench-user", background_length=0, background_tokens=0, card_ids=[], card_count_requested=0
    )
    write_new_chat(
        db,
        chat_id,
        chat,
        private,
        ChatBackground(chat=chat_id, owner="bench-user", model=OFFLINE_MODEL_ID, tokens=0, parts=0),
        "",
        [
            (
                f"{chat_id}-q0",
                ChatMessage(
                    chat=chat_id, message_index=0, role="user", content="Why are there tides?", status="complete"
                ),
            ),
            (
                stub,
                ChatMessage(
                    chat=chat_id, message_index=1, role="assistant", content="", status="ready", model=OFFLINE_MODEL_ID
                ),
            ),
        ],
    )
    return stub


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _bench_engine(db: Any, tokens: list[str], rate: float) -> dict[str, Any]:
    stub = _stub(db, "bench-engine")
    source = PacedSource(tokens, rate)
    saved = providers.PROVIDERS["offline"]
    providers.PROVIDERS["offline"] = lambda: source
    listener = Listener(db, stub)
    try:
        with WriteCounter(db).counting() as counter:
            started = time.monotonic()
            status = engine.generate(db, stub)
            elapsed = time.monotonic() - started
    finally:
        providers.PROVIDERS["offline"] = saved
    listener.settle()
    msg = db.collection(CHAT_MESSAGES).document(stub).get().to_dict()
    assert status == "complete" and msg["content"] == "".join(tokens), "the engine lost text"
    assert "".join(listener.first_seen[i][1] for i in sorted(listener.first_seen)) == msg["content"]
    generation = source.emitted[-1] - source.emitted[0]
    result = {
        "writes": counter.by_collection,
        "total": counter.total,
        "elapsed": elapsed,
        "chunks": AnswerTimings.of(msg).chunks,
        "generation": generation,
        "latency": listener.token_latencies(tokens, source.emitted),
    }
    delete_chat(db, "bench-engine")
    return result


def _bench_naive(db: Any, tokens: list[str], rate: float) -> dict[str, Any]:
    """One chunk document per token, written as it arrives, then the final
    message, then every chunk deleted: what the original team shipped."""
    stub = _stub(db, "bench-naive")
    listener = Listener(db, stub)
    chunks = db.collection(CHAT_MESSAGES_STREAMING)
    emitted: list[float] = []
    with WriteCounter(db).counting() as counter:
        start = time.monotonic()
        for i, token in enumerate(tokens):
            delay = start + i / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            emitted.append(time.monotonic())
            chunks.document(f"{stub}_{i:06d}").set(
                StreamChunk(chat="bench-naive", message=stub, message_index=1, index=i, content=token).to_dict()
            )
        db.collection(CHAT_MESSAGES).document(stub).update({"status": "complete", "content": "".join(tokens)})
        for i0 in range(0, len(tokens), 450):
            batch = db.batch()
            for i in range(i0, min(i0 + 450, len(tokens))):
                batch.delete(chunks.document(f"{stub}_{i:06d}"))
            batch.commit()
    listener.settle()
    result = {
        "writes": counter.by_collection,
        "total": counter.total,
        "latency": listener.token_latencies(tokens, emitted),
    }
    delete_chat(db, "bench-naive")
    return result


def run(db: Any) -> list[str]:
    n, rate = _settings()
    tokens = _tokens(n)
    eng = _bench_engine(db, tokens, rate)
    naive = _bench_naive(db, tokens, rate)
    chunk_writes = eng["writes"].get(CHAT_MESSAGES_STREAMING, 0) - eng["chunks"]  # the rest are deletes
    lat = [x * 1000 for x in eng["latency"]]
    naive_lat = [x * 1000 for x in naive["latency"]]
    per_second = eng["chunks"] / eng["generation"]
    return [
        f"streaming: {n} tokens at {rate:g} tokens/s ({eng['generation']:.1f} s of generation, "
        f"generate() took {eng['elapsed']:.1f} s)",
        f"  engine writes: {eng['total']} in all {dict(sorted(eng['writes'].items()))} "
        f"= {eng['chunks']} chunks + {chunk_writes} chunk deletes + final/take/lease/rate-limit",
        f"  naive  writes: {naive['total']} in all {dict(sorted(naive['writes'].items()))}",
        f"  write reduction: {naive['total'] / eng['total']:.1f}x fewer (goal >= 10x)",
        f"  chunk writes per second of generation: {per_second:.2f} (goal <= 5)",
        f"  token-to-visible latency (on_snapshot): engine p50 {_percentile(lat, 0.5):.0f} ms, "
        f"p95 {_percentile(lat, 0.95):.0f} ms (goal p50 <= 250 ms); "
        f"naive p50 {_percentile(naive_lat, 0.5):.0f} ms, p95 {_percentile(naive_lat, 0.95):.0f} ms",
    ]


if __name__ == "__main__":
    from benchmarks.common import run_against_emulator

    run_against_emulator(run)
