"""Many users at once, and an import's embedding beside them, through the whole stack.

Runs under `scripts/bench load`, which starts the Auth, Firestore and
Functions emulators with ANTHROPIC_BASE_URL pointing at a local fake of
Anthropic's streaming Messages API (benchmarks/fake_provider.py: real SSE
wire format, the first token 300 ms after the request, then 50 tokens a
second). The per-user rate limits are the deployed defaults.

Phases, one after the other (benchmarks/load_users.py: what a user does):
  25 at once, workers cold     each user creates a chat and posts 3 follow-ups, as the
                               phases after it do: the emulator starts a worker per
                               call running at once, and each loads what a follow-up
                               needs (the embedder) at its first one
  1 user, 10 users, 25 users   each user creates a chat and posts 3 follow-ups,
                               all users at once, on warm workers; the 1-user phase
                               is the idle figure (its users ask one after another, each
                               twice: 16 answers)
  1 user during an import      an importer's cards (10,000; BENCH_LOAD_IMPORT) written
                               in batches of 500, as the CLI and the browser import
                               write them: once while their trigger events are being
                               delivered, once after, while only their embedding runs

Send → first chunk is the time from the call to the commit of the answer's
first chunk document, Send → complete to the commit of its final status.
A user gives up on an answer after load_users.ANSWER_PATIENCE_S ("answer: not
ended in time"). All along, collection-group listeners count the writes of every document
(benchmarks/write_rates.py) for the hot-document table.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import sized
from benchmarks.fake_provider import FakeAnthropic
from benchmarks.load_users import Answer, Deck, User, errors_by_code, sign_up
from benchmarks.write_rates import WriteRates, over_limit
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, CHAT_MESSAGES_STREAMING, Card
from cardchat.schema.embedding_queue import EMBEDDING_QUEUE

KEYED = "claude-haiku-4-5"
#: The fake's answer: 100 tokens, two seconds at 50 tokens a second.
ANSWER_WORDS = ("Tides follow the moon [1]: its gravity pulls the oceans into two bulges. " * 8).split(" ")[:100]
#: Users asking one after another in each 1-user phase (each asks `rounds` chats of 4 answers).
ALONE = sized(2, 1)
#: How long the bench waits for the import's triggers to run, and then for its embedding to end.
IMPORT_PATIENCE_S = 900.0


@dataclass
class Phase:
    label: str
    users: int
    answers: list[Answer] = field(default_factory=list)
    start: float = 0.0
    end: float = 0.0
    writes: dict[str, int] = field(default_factory=dict)

    def times(self, which: str) -> list[float]:
        return [t for a in self.answers if (t := getattr(a, which)) is not None]

    @property
    def completed(self) -> int:
        return sum(a.status == "complete" for a in self.answers)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def _users(db: Any, deck: Deck, n: int) -> list[tuple[str, list[str]]]:
    """n signed-up users with their cards and their retrieval index built, as after an embedded import."""
    out = []
    for _ in range(n):
        uid, token = sign_up(db, os.environ["FIREBASE_AUTH_EMULATOR_HOST"])
        out.append((token, deck.give(db, uid)))
        rebuild(db, uid)
    return out


def _ask(db: Any, phase: Phase, users: list[tuple[str, list[str]]], rounds: int, follow_ups: int) -> Phase:
    together = threading.Barrier(len(users))
    threads = [User(db, token, cards, KEYED, rounds, follow_ups, together) for token, cards in users]
    phase.start = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    phase.end = time.time()
    phase.answers = [a for t in threads for a in t.answers]
    return phase


def _alone(db: Any, label: str, users: list[tuple[str, list[str]]], rounds: int) -> Phase:
    """A 1-user phase: `users` ask one after another, so that the phase has enough answers for a
    steady p50 (the Cloud Tasks emulator adds up to a second to each) while each stays within its rate limit."""
    phase = Phase(label, 1, start=time.time())
    for user in users:
        phase.answers += _ask(db, Phase(label, 1), [user], rounds, 3).answers
    phase.end = time.time()
    return phase


def _import(db: Any, n: int) -> str:
    """n cards of a fresh owner, in batches of 500 (a CLI or browser import); returns the owner."""
    owner = f"load-importer-{uuid.uuid4().hex[:8]}"
    for start in range(0, n, 500):
        batch = db.batch()
        for i in range(start, min(n, start + 500)):
            body = f"Subject {i % 11}: what was learnt about item {i}, with the details of part {i * 7 % 101}. " * 3
            card = Card(title=f"Note {i} on topic {i % 37}", body=body, owner=owner)
            batch.set(db.collection(CARDS).document(f"{owner}-{i:05d}"), card.to_dict())
        batch.commit()
    return owner


def _count(db: Any, collection: str, owner: str) -> int:
    from google.cloud.firestore import FieldFilter

    counting: Any = db.collection(collection).where(filter=FieldFilter("owner", "==", owner)).count(alias="n")
    return int(counting.get()[0][0].value)


def _wait(what: str, done: Any, patience: float = IMPORT_PATIENCE_S) -> str:
    """'' once `done()`, else a note that the wait ran out."""
    deadline = time.monotonic() + patience
    while not done():
        if time.monotonic() > deadline:
            return f" (gave up waiting for {what} after {patience:.0f} s)"
        time.sleep(1.0)
    return ""


def _during_import(db: Any, deck: Deck, cards: int, rounds: int) -> Iterator[Phase | str]:
    """The 1-user phase again, twice during an import: right after its cards are written, while
    their trigger events are delivered (on the emulator, one at a time), then once every event
    has queued its card and only the embedding runs."""
    users = _users(db, deck, 2 * ALONE)
    owner = _import(db, cards)
    written = time.time()
    yield _alone(db, "1 user, import's events queued", users[:ALONE], rounds)
    triggered = lambda: _count(db, EMBEDDING_QUEUE, owner) + _count(db, CARD_EMBEDDINGS, owner) >= cards  # noqa: E731
    gave_up = _wait("every card's trigger", triggered)
    events_s = time.time() - written
    embedded = _count(db, CARD_EMBEDDINGS, owner)
    after = _alone(db, "1 user, import embedding", users[ALONE:], rounds)
    during = _count(db, CARD_EMBEDDINGS, owner)
    yield after
    gave_up += _wait("the import's embedding to end", lambda: _count(db, CARD_EMBEDDINGS, owner) >= cards)
    state = "embedding in progress" if during < cards else "already done"
    yield (
        f"  import: {cards:,} cards written in batches of 500; every card's trigger had run {events_s:.0f} s after; "
        f"{embedded:,} → {during:,} embedded while the second phase asked ({state}); "
        f"all embedded {time.time() - written:.0f} s after the write{gave_up}"
    )
    yield "  (the hot-document table runs to the end of the import's embedding)"


def _phase_line(p: Phase) -> str:
    first, done = p.times("to_first"), p.times("to_complete")
    answers = max(p.completed, 1)
    per_answer = sum(v for k, v in p.writes.items() if k not in (CARDS, CARD_EMBEDDINGS)) / answers
    errors = ", ".join(f"{k} ×{n}" for k, n in errors_by_code(p.answers).most_common()) or "none"
    return (
        f"{p.label:34s} answers {p.completed:3d}/{len(p.answers):3d}  first chunk p50 {_pct(first, 0.5):5.0f} "
        f"p95 {_pct(first, 0.95):5.0f} ms  complete p50 {_pct(done, 0.5):5.0f} p95 {_pct(done, 0.95):5.0f} ms  "
        f"writes/answer {per_answer:5.1f}  errors: {errors}"
    )


def _chunks_left(db: Any) -> int:
    counting: Any = db.collection(CHAT_MESSAGES_STREAMING).count(alias="n")
    return int(counting.get()[0][0].value)


def _user_counts() -> list[int]:
    """1, 10 and 25 users; BENCH_LOAD_USERS=1,10 for fewer (each user at once is a worker process
    per function on the emulator: 25 of them and an import's took more than 24 GiB beside other stacks)."""
    wanted = os.environ.get("BENCH_LOAD_USERS", "")
    return sized([int(n) for n in wanted.split(",")] if wanted else [1, 10, 25], [1])


def _phases(db: Any) -> Iterator[Phase | str]:
    deck = Deck(sized(30, 5))
    # The Functions emulator starts a Python worker per call running at once and keeps it: the
    # first wave of 25 pays their cold starts (as a deployment's first burst does), the phases after
    # it meet warm workers (as a deployment's steady load does).
    sizes = _user_counts()
    biggest = max(sizes)
    yield _ask(db, Phase(f"{biggest} at once, workers cold", biggest), _users(db, deck, biggest), 1, sized(3, 1))
    rounds = sized(2, 1)
    for n in sizes:
        if n == 1:
            yield _alone(db, "1 user at once", _users(db, deck, ALONE), rounds)
        else:
            yield _ask(db, Phase(f"{n} users at once", n), _users(db, deck, n), 1, sized(3, 1))
    if cards := int(os.environ.get("BENCH_LOAD_IMPORT", sized("10000", "20"))):
        yield from _during_import(db, deck, cards, rounds)


def _goals(phases: list[Phase], left: int, hot: list[Any]) -> Iterator[str]:
    by_label = {p.label: p for p in phases}
    yield f"goals (load average {Path('/proc/loadavg').read_text().split()[0]}):"
    for n in (10, 25):
        if (p := by_label.get(f"{n} users at once")) is not None:
            yield f"  every answer completes at {n} users: {p.completed}/{len(p.answers)}"
    yield f"  chunk documents left after: {left} (goal 0)"
    over = over_limit(hot)
    yield f"  documents above 1 write/s over 10 s (answer streams aside): {len(over)} {[d.path for d in over]}"
    if (one := by_label.get("1 user at once")) is None:
        yield "  (no 1-user phase: the goals measured against the idle figure are not judged)"
        return
    idle = _pct(one.times("to_first"), 0.5)
    if (p := by_label.get("10 users at once")) is not None:
        p95 = _pct(p.times("to_first"), 0.95)
        yield f"  p95 first chunk at 10 users {p95:.0f} ms ≤ 3× the 1-user p50 ({3 * idle:.0f} ms): {p95 <= 3 * idle}"
    for p in phases:
        if "import" in p.label:
            during = _pct(p.times("to_first"), 0.5)
            ok = during <= 1.5 * idle
            yield f"  first chunk p50, {p.label}: {during:.0f} ms ≤ 1.5× idle ({1.5 * idle:.0f} ms): {ok}"


def run(db: Any) -> Iterator[str]:
    port = int(os.environ.get("CARDCHAT_FAKE_PROVIDER_PORT", "7090"))
    rates = WriteRates(db)
    yield (
        "Send → first chunk and Send → complete, ms; writes/answer: every document write of the phase "
        "(cards and vectors aside) over its answers, as the listeners saw them (a floor)"
    )
    phases: list[Phase] = []
    try:
        with FakeAnthropic(port, words=ANSWER_WORDS):
            for item in _phases(db):
                if isinstance(item, str):
                    yield item
                    continue
                time.sleep(1.0)  # the last chunk deletes and usage writes land inside the phase
                item.writes = rates.writes(item.start, time.time())
                phases.append(item)
                yield _phase_line(item)
                yield f"  writes by collection: {dict(sorted(item.writes.items()))}"
        time.sleep(2.0)
        left = _chunks_left(db)
        hot = rates.hottest(phases[0].start, time.time(), 5)
        stream = rates.hottest(phases[0].start, time.time(), 1, stream_only=True)
    finally:
        rates.close()
    yield "hottest documents over the whole run (writes in the busiest 10 s / 10):"
    yield from (f"  {d.line()}" for d in hot + stream)
    for p in phases:
        top = rates.hottest(p.start, p.end, 1)
        yield f"  hottest in '{p.label}': {top[0].line() if top else 'none'}"
    yield from _goals(phases, left, hot)
