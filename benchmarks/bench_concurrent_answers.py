"""Several answers at once in one generateAnswer process: what a concurrency above 1 costs in
memory and in each answer's wait for its first text.

For 1, 4 and 8 answers at once, a fresh Python process imports `main` (what a cold instance
loads) and answers once to warm up, then runs that many answers side by side
(`answer_runs.run_answer`, as the task does), each a first question in a chat over 200 embedded
cards of its own owner, through the Anthropic SDK against benchmarks/fake_provider.py (its first
token after 0.3 s, as a fast model's). It reports the process's peak
RSS (VmHWM) and each answer's take → first text (`timings.ttft`), p50 and p95.

    scripts/bench concurrent_answers
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from benchmarks.common import ROOT, in_fresh_process, peak_rss_mib, sized
from benchmarks.decks import GIT_WORDS, DeckWriter, unit_vector, words

CARDS = 200
QUESTION = "how do I rebase my branch onto main?"
PROJECT = "demo-cardchat-bench"


def _claude() -> str:
    from cardchat.llm.models import MODELS

    return next(m.id for m in MODELS.values() if m.provider == "anthropic")


def _seed_owner(db: Any, owner: str) -> dict[str, Any]:
    from cardchat.schema.documents import Card

    rng, vr = random.Random(owner), np.random.default_rng(abs(hash(owner)) % 2**32)
    deck, cards = DeckWriter(db), {}
    for i in range(CARDS):
        card = Card(f"Card {i}", words(rng, 40, 160, GIT_WORDS[:16]) + ".", owner)
        deck.card(f"{owner}-{i:04d}", card, unit_vector(vr))
        cards[f"{owner}-{i:04d}"] = card
    deck.close()
    return cards


def _ready_chat(db: Any, chat_id: str, owner: str, cards: dict[str, Any]) -> str:
    """A chat over `cards` whose first question waits for its answer; the waiting stub's id."""
    from cardchat.llm.models import MODELS
    from cardchat.repo.chats import write_new_chat
    from cardchat.retrieval.background import fit_background
    from cardchat.schema.chat_sources import ChatSource
    from cardchat.schema.documents import USERS, Chat, ChatBackground, ChatPrivate, UserDoc
    from cardchat.schema.messages import ChatMessage

    spec = MODELS[_claude()]
    bg = fit_background(list(cards.items())[:40], 4_000, spec.tokenizer)
    stub = f"{chat_id}-m1"
    write_new_chat(
        db,
        chat_id,
        Chat(owner=owner, title="t", model=spec.id),
        ChatPrivate(owner, 4_000, bg.tokens, bg.card_ids, len(cards)),
        ChatBackground(chat=chat_id, owner=owner, model=spec.id, tokens=bg.tokens, parts=0),
        bg.text,
        [
            (f"{chat_id}-m0", ChatMessage(chat_id, 0, "user", QUESTION, "complete")),
            (stub, ChatMessage(chat_id, 1, "assistant", "", "ready", model=spec.id)),
        ],
        None,
        ChatSource(chat=chat_id, owner=owner, card_ids=list(cards)),
    )
    db.collection(USERS).document(owner).set(UserDoc(may_use_ai=True).to_dict(), merge=True)
    return stub


def child(n: int) -> dict[str, Any]:
    """In a fresh process: `n` answers at once; peak RSS and each answer's ttft."""
    from google.cloud import firestore

    import main  # noqa: F401  (what a cold generateAnswer instance has loaded)
    from benchmarks.fake_provider import FakeAnthropic
    from cardchat.generation import answer_runs
    from cardchat.schema.documents import CHAT_MESSAGES

    db = firestore.Client(project=PROJECT)
    run = f"{n}-{time.time_ns()}"
    stubs = []
    for k in range(n + 1):
        owner = f"conc-{run}-{k}"
        stubs.append(_ready_chat(db, f"conc-{run}-{k}", owner, _seed_owner(db, owner)))
    warm_up, stubs = stubs[0], stubs[1:]
    with FakeAnthropic(0) as fake:
        os.environ.update(ANTHROPIC_BASE_URL=f"http://127.0.0.1:{fake.port}", ANTHROPIC_API_KEY="sk-ant-bench-fake")
        answer_runs.run_answer(db, warm_up)  # the model loaded, the SDK imported: a warm instance
        start = threading.Barrier(n)

        def answer(stub: str) -> str:
            start.wait()
            return answer_runs.run_answer(db, stub)

        with ThreadPoolExecutor(max_workers=n) as pool:
            statuses = list(pool.map(answer, stubs))
    assert statuses == ["complete"] * n, statuses
    ttfts = [db.collection(CHAT_MESSAGES).document(s).get().get("timings")["ttft"] for s in stubs]
    return {"ttfts": ttfts, "rss_mib": peak_rss_mib()}


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def run(_db: Any = None) -> list[str]:
    lines = []
    for n in sized((1, 4, 8), (1, 2)):
        ttfts: list[float] = []
        rss = 0.0
        for _ in range(sized(3, 1)):  # fresh processes: each a cold instance's memory
            out = in_fresh_process(__name__, ["child", str(n)], PROJECT, ROOT / "functions")
            ttfts += out["ttfts"]
            rss = max(rss, out["rss_mib"])
        lines.append(
            f"{n} answer(s) at once in one process: peak RSS {rss:,.0f} MiB; take → first text "
            f"p50 {statistics.median(ttfts) * 1000:,.0f} ms, p95 {_p95(ttfts) * 1000:,.0f} ms ({len(ttfts)} answers)"
        )
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        print(json.dumps(child(int(sys.argv[2]))))
    else:
        for line in run():
            print(line)
