"""What generateAnswer does with a task (repo/answer_tasks.py): run the answer it names
(engine.generate, whose take_run makes a duplicate delivery or a stale task harmless)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cardchat.generation import engine
from cardchat.repo import messages as messages_repo

if TYPE_CHECKING:
    from cardchat.repo.db import Db


def message_of(task: Mapping[str, Any] | None) -> str:
    """The answer a task names; "" for a task that names none (nothing to run)."""
    value = task.get("message") if isinstance(task, Mapping) else None
    return value if isinstance(value, str) else ""


def run_answer(db: Db, message_id: str) -> dict[str, Any] | None:
    """Generate the answer `message_id`; its message when it completed, else None."""
    if message_id and engine.generate(db, message_id) == "complete":
        return messages_repo.get_message(db, message_id)
    return None
