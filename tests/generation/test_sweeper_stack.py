"""A worker killed mid-answer, on the full emulator stack, with no client
open: the Functions emulator's Python worker streaming the answer gets
SIGKILL; the answer stays `streaming` until its lease runs out, then the
sweeper (production's scheduled sweepAnswers, called here as scripts/dev's
loop calls it) re-drives it, the trigger answers it again from the start,
its text once, and the chat takes the next question."""

from __future__ import annotations

import os
import signal
import time

import pytest
from google.cloud.firestore import FieldFilter

from cardchat.generation.sweeper import sweep
from cardchat.providers.offline import NOTE
from cardchat.schema.documents import CARDS, CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, USERS, Card, UserDoc
from engine_support import ChunkWatcher
from fault_support import stack_workers

pytestmark = pytest.mark.functions

#: Bounds on waits for the stack (not paces): an answer of the offline model, a trigger's delivery.
ANSWER_BOUND_S = 300
#: Distinct sentences on tides: the offline answer quotes them all, word by word, for seconds.
SENTENCES = [
    (
        "Two tides a day happen because the moon's gravity pulls the near side of the ocean into a bulge "
        "while the earth is pulled away from the water on the far side, leaving a second bulge, and the earth"
        " turns beneath both bulges once a day."
    ),
    (
        "Most coasts therefore see two high tides and two low tides a day, about twelve hours and twenty-five"
        " minutes apart, because the moon moves along its orbit while the earth turns and each tide arrives a"
        " little later than the day before."
    ),
    (
        "Spring tides, the largest tides of the month, come twice a month when the sun and the moon pull in a"
        " line at new moon and full moon, and their pulls on the ocean add up to a higher high tide and a "
        "lower low tide."
    ),
    (
        "Neap tides, the smallest tides of the month, come when the sun and the moon pull at right angles at "
        "the quarter moons, so the sun's pull on the sea partly cancels the moon's and the range between high"
        " and low tide is small."
    ),
    (
        "The shape of a coast and the depth of the sea change the tides a day brings: a funnel-shaped bay "
        "such as the Bay of Fundy piles the tide up to sixteen metres, while an enclosed sea such as the "
        "Mediterranean barely has tides at all."
    ),
    (
        "Some places have only one tide a day, a diurnal tide, because the shape of the ocean basin and the "
        "tilt of the moon's orbit make one of the two daily bulges miss them, as on parts of the Gulf of "
        "Mexico and the coast of Vietnam."
    ),
]


def _card(owner: str, n: int) -> Card:
    return Card(f"Why the sea has tides {n}", " ".join(SENTENCES[3 * n : 3 * n + 3]), owner)


def _final(app_db, message_id: str) -> dict:
    ref = app_db.collection(CHAT_MESSAGES).document(message_id)
    give_up = time.monotonic() + ANSWER_BOUND_S
    while time.monotonic() < give_up:
        msg = ref.get().to_dict() or {}
        if msg.get("status") in ("complete", "failed"):
            return msg
        time.sleep(0.25)
    raise AssertionError(f"{message_id} was not final within {ANSWER_BOUND_S} s: {msg.get('status')}")


def _kill_the_answering_worker(app_db, answer_id: str) -> str:
    """SIGKILL every generateAnswer worker of this stack once the answer has
    streamed its first chunk; returns that chunk's text."""
    watcher = ChunkWatcher(app_db, answer_id)
    try:
        watcher.wait_until(lambda w: 0 in w.seen, timeout=ANSWER_BOUND_S)
        workers = stack_workers("generateAnswer")
        assert workers, "no generateAnswer worker of this stack was found"
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        return watcher.seen[0]
    finally:
        watcher.close()


def test_a_worker_killed_mid_answer_is_re_driven_by_the_sweeper_and_the_chat_goes_on(call, app_db, sign_up):
    uid, token = sign_up()
    app_db.collection(USERS).document(uid).set(UserDoc(may_use_ai=True).to_dict())
    cards = {f"{uid}_tides{n}": _card(uid, n) for n in range(2)}
    for card_id, card in cards.items():
        app_db.collection(CARDS).document(card_id).set(card.to_dict())
    chat_id = call("createChat", {"card_ids": list(cards), "initial_message": "Why are there two tides a day?"}, token)[
        "chat_id"
    ]
    answer_id = f"{chat_id}-0001"
    first_words = _kill_the_answering_worker(app_db, answer_id)

    dead = app_db.collection(CHAT_MESSAGES).document(answer_id).get().to_dict()
    assert dead["status"] == "streaming", "the answer ended before its worker was killed: make it longer"
    # Judged at the moment its lease runs out (nothing renews it any more), not by waiting for it.
    done = sweep(app_db, now=lambda: dead["lease_expires"])
    assert done.redriven == [answer_id]

    answer = _final(app_db, answer_id)  # the trigger on the sweeper's write, in a fresh worker
    assert answer["status"] == "complete", answer.get("error")
    assert (answer["attempts"], answer["redrives"]) == (2, 1)
    # One answer from its start: each quoted sentence and the closing note once.
    assert answer["content"].startswith(first_words)
    quoted = [answer["content"].count(sentence) for sentence in SENTENCES]
    assert max(quoted) == 1 and answer["content"].count(NOTE) == 1
    chunks = app_db.collection(CHAT_MESSAGES_STREAMING).where(filter=FieldFilter("message", "==", answer_id))
    assert _eventually_empty(chunks)

    reply = call("postMessage", {"chat_id": chat_id, "content": "And what are neap tides?"}, token)
    assert _final(app_db, reply["message_id"])["status"] == "complete"


def _eventually_empty(query) -> bool:
    """The chunks go right after the final write (completion.complete), not with it."""
    give_up = time.monotonic() + 30
    while query.get():
        if time.monotonic() > give_up:
            return False
        time.sleep(0.1)
    return True
