"""The stall and retry rule, case by case from common/message_stall_cases.json:
web/src/chat/messagestate.test.ts checks the SPA against the same table, so the
Retry the SPA offers is the retry the server accepts."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import get_args

import pytest

from cardchat.chat.turns import is_stalled, may_retry
from cardchat.schema.documents import MESSAGE_STATUS, Status
from cardchat.schema.messages import ChatMessage

CASES = json.loads((Path(__file__).resolve().parents[2] / "common" / "message_stall_cases.json").read_text())["cases"]
NOW = datetime(2026, 1, 1, 12, tzinfo=UTC)
LEASES = {"none": None, "past": NOW - timedelta(milliseconds=1), "now": NOW, "future": NOW + timedelta(seconds=30)}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['status']}-{c['lease']}")
def test_stall_and_retry_follow_the_shared_table(case):
    msg = ChatMessage.from_dict({"role": "assistant", "status": case["status"], "lease_expires": LEASES[case["lease"]]})
    assert is_stalled(msg, NOW) is case["stalled"]
    assert may_retry(msg, NOW) is case["retry"]


def test_the_status_type_lists_the_shared_statuses():
    assert set(get_args(Status)) == set(MESSAGE_STATUS.values())
