"""Firestore reads and writes per call, for the capacity model: what one
createChat, one answer, one follow-up, one searchCards and one MCP search
cost, counted at the client (benchmarks/op_counter.py) as Firestore bills
them.

Each call runs in this process as its endpoint in functions/endpoints/ runs it
(the same access checks, then the domain), against the Firestore emulator in
a project no trigger listens to (with the Auth emulator: an MCP token is
checked against its account); the answers are made by answer_runs.run_answer,
generateAnswer's body (the task's answer), with Anthropic's API faked on loopback
(benchmarks/fake_provider.py: 100 tokens, 50 a second). A user's cards are
demo-deck cards with their vectors and retrieval index, as after an embedded
import; at 10,000 cards, the synthetic deck of benchmarks/decks.py, of which
the chat packs what the default background share of the model's window holds.
The first call of each kind in a process fills caches (the retrieval index,
vectors, text hashes); "warm" is a second one, as on a warm instance. The last
line sets the warm follow-up answer's reads at each size side by side: they
must not grow with the chat from 300 to 10,000 cards. Beside them, how many of
them were cards: those the turn added that the instance did not keep (at 300
cards the background holds every card and a follow-up has none to add).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from typing import Any

from benchmarks.bench_load import ANSWER_WORDS, KEYED
from benchmarks.common import sized
from benchmarks.decks import seed_owner
from benchmarks.fake_provider import FakeAnthropic
from benchmarks.load_users import Deck
from benchmarks.op_counter import OpCounter
from cardchat.access import access_tokens
from cardchat.access import permissions as access
from cardchat.access.permissions import grant_ai
from cardchat.chat import card_search, turns
from cardchat.chat import create as chats
from cardchat.generation import answer_runs
from cardchat.ids import first_message_id
from cardchat.parsing import requests as parsing
from cardchat.repo import cards as card_repo
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.schema.documents import CARDS

QUESTION = "how do I undo the last commit?"
#: A follow-up of its own for each temper: the warm one must not find its candidates kept by the first.
FOLLOW_UPS = {"first in the process": "and how do I undo a merge?", "warm": "and what if I already pushed it?"}
#: Reads a follow-up's answer may take, whatever the chat's size.
GOAL_READS = 60


def _create(db: Any, uid: str, cards: list[str]) -> str:
    ai = access.ai_access(db, uid)
    req = parsing.create_chat({"card_ids": cards, "initial_message": QUESTION, "model": KEYED}, own_keys=ai.own_keys)
    return chats.create_chat(db, uid, req, limits=ai.admit(req.model)).chat_id


def _post(db: Any, uid: str, chat_id: str, question: str) -> str:
    limits = access.ai_access(db, uid).admit(access.model_of_chat(db, chat_id))
    return turns.post_message(db, uid, chat_id, question, limits=limits)


def _search(db: Any, uid: str) -> None:
    card_search.search_cards(db, uid, parsing.search_cards({"text": "undo the last commit", "limit": 10}))


def _mcp(db: Any, token: str) -> None:
    from werkzeug.test import EnvironBuilder

    from cardchat.mcpserver import server

    uid = access_tokens.authenticate(db, f"Bearer {token}")
    arguments = {"query": "undo the last commit", "limit": 10}
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    body["params"] = {"name": "search_cards", "arguments": arguments}
    environ = EnvironBuilder(
        method="POST",
        data=json.dumps(body),
        headers=[("content-type", "application/json"), ("accept", "application/json, text/event-stream")],
    ).get_environ()
    response = server.serve(environ, db, uid)
    if response.status_code != 200 or b"error" in response.get_data()[:200]:
        raise RuntimeError(f"MCP search_cards: {response.status_code} {response.get_data()[:300]!r}")


def _user(db: Any, deck: Deck | int) -> tuple[str, list[str]]:
    """An Auth emulator account (an MCP token acts only for a live one) with AI use, cards, vectors and index."""
    import firebase_admin
    from firebase_admin import auth

    if firebase_admin._DEFAULT_APP_NAME not in firebase_admin._apps:  # a named app (answer_tasks') is not it
        firebase_admin.initialize_app(options={"projectId": db.project})
    uid = f"costs-{uuid.uuid4().hex[:10]}"
    auth.create_user(uid=uid)
    grant_ai(db, uid, True)
    cards = deck.give(db, uid) if isinstance(deck, Deck) else seed_owner(db, deck, uid)
    rebuild(db, uid)
    return uid, cards


def _measure(counter: OpCounter, label: str, call: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    with counter.counting() as ops:
        result = call(*args)
    return f"  {label:44s} {ops.line()}", result


def _answer(db: Any, message_id: str) -> Any:
    """What generateAnswer does with the task the turn's commit enqueued."""
    return answer_runs.run_answer(db, message_id)


def _costs(db: Any, deck: Deck | int) -> tuple[list[str], tuple[int, int]]:
    """Each call's line; the reads of the warm follow-up's answer, and how many of them were cards."""
    counter, lines, follow_up_reads = OpCounter(db), [], (0, 0)
    uid, cards = _user(db, deck)
    token = access_tokens.create(db, uid, "bench").token
    for temper in ("first in the process", "warm"):
        line, chat_id = _measure(counter, f"createChat ({temper})", _create, db, uid, cards)
        lines.append(line)
        first = first_message_id(chat_id, 1)
        lines.append(_measure(counter, "  its answer and title (generateAnswer)", _answer, db, first)[0])
        line, stub = _measure(counter, f"postMessage ({temper})", _post, db, uid, chat_id, FOLLOW_UPS[temper])
        lines.append(line)
        cards_before = card_repo.READS[CARDS]
        with counter.counting() as ops:
            _answer(db, stub)
        lines.append(f"  {'  its answer (generateAnswer)':44s} {ops.line()}")
        follow_up_reads = ops.reads, card_repo.READS[CARDS] - cards_before
        lines.append(_measure(counter, f"searchCards ({temper})", _search, db, uid)[0])
        lines.append(_measure(counter, f"MCP search_cards ({temper})", _mcp, db, token)[0])
    return lines, follow_up_reads


def run(db: Any) -> list[str]:
    lines = []
    saved = {k: os.environ.get(k) for k in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")}
    with FakeAnthropic(0, words=ANSWER_WORDS) as fake:
        os.environ.update(ANTHROPIC_BASE_URL=f"http://127.0.0.1:{fake.port}", ANTHROPIC_API_KEY="sk-ant-bench-fake")
        try:
            follow_ups = {}
            # (cards, of the synthetic deck): the demo deck has about 1,100 cards
            for n, synthetic in sized(((30, False), (300, False), (10_000, True)), ((5, False), (40, True))):
                deck = n if synthetic else Deck(n)
                lines.append(f"a user with {n} cards, a chat over all of them (Firestore reads / writes per call):")
                costs, follow_ups[n] = _costs(db, deck)
                lines += costs
            sizes = " / ".join(f"{n:,}" for n in follow_ups)
            reads = " / ".join(str(r) for r, _ in follow_ups.values())
            cards = " / ".join(str(c) for _, c in follow_ups.values())
            # the goal is for the two largest sizes (300 and 10,000 cards)
            smaller, largest = sorted(follow_ups)[-2:]
            most = max(r for r, _ in follow_ups.values())
            met = most <= GOAL_READS and follow_ups[largest][0] <= follow_ups[smaller][0]
            lines.append(
                f"reads per warm follow-up answer at {sizes} cards: {reads}, of them cards: {cards}"
                f" (goal ≤ {GOAL_READS}, no more at {largest:,} than at {smaller:,}: {'met' if met else 'MISSED'})"
            )
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    return lines


if __name__ == "__main__":
    from benchmarks.common import run_against_emulator

    run_against_emulator(run)
