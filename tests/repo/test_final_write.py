"""An answer's final write (repo/messages.finish) sent again after its outcome was lost in transit:
the run finds its own landed write and counts its usage once; another run's answer stays refused."""

from __future__ import annotations

import pytest

from cardchat.repo import messages as messages_repo
from cardchat.schema.accounts import USAGE_DAILY, UsageDay, usage_day_id
from cardchat.schema.documents import CHAT_MESSAGES
from cardchat.schema.messages import FinalAnswer

pytestmark = pytest.mark.emulator

DAY = UsageDay(owner="u1", day="2026-12-05", model="m", answers=1, input_tokens=10, output_tokens=5)


def _streaming(db, run_id: str) -> None:
    db.collection(CHAT_MESSAGES).document("a1").set(
        {"chat": "c1", "role": "assistant", "status": "streaming", "run_id": run_id, "content": ""}
    )


def test_a_final_write_sent_again_finds_its_own_and_counts_its_usage_once(db):
    _streaming(db, "run-1")
    answer = FinalAnswer(status="complete", content="The answer.")
    messages_repo.finish(db, "a1", "run-1", answer, usage_day=DAY)
    messages_repo.finish(db, "a1", "run-1", answer, usage_day=DAY)  # as after a lost outcome
    assert db.collection(CHAT_MESSAGES).document("a1").get().get("status") == "complete"
    usage = db.collection(USAGE_DAILY).document(usage_day_id("u1", DAY.day, "m")).get().to_dict()
    assert (usage["answers"], usage["output_tokens"]) == (1, 5)


def test_another_runs_final_write_is_still_refused(db):
    _streaming(db, "run-1")
    messages_repo.finish(db, "a1", "run-1", FinalAnswer(status="complete", content="Mine."))
    with pytest.raises(messages_repo.LostOwnership):
        messages_repo.finish(db, "a1", "run-2", FinalAnswer(status="complete", content="Theirs."))
    with pytest.raises(messages_repo.LostOwnership):
        messages_repo.finish(db, "a1", "run-1", FinalAnswer.failed("", ""))
