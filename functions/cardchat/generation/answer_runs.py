"""What generateAnswer does with a task (repo/answer_tasks.py): run the answer it names
(engine.generate, whose take_run makes a duplicate delivery or a stale task harmless)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cardchat.generation import answered, engine

if TYPE_CHECKING:
    from cardchat.repo.db import Db


def message_of(task: Mapping[str, Any] | None) -> str:
    """The answer a task names; "" for a task that names none (nothing to run)."""
    value = task.get("message") if isinstance(task, Mapping) else None
    return value if isinstance(value, str) else ""


def run_answer(db: Db, message_id: str) -> str:
    """Generate the answer `message_id`, and after it what a complete answer does
    (generation/answered.py); the status it ended in (engine.generate), "skipped" for none."""
    return engine.generate(db, message_id, then=answered.after_answer) if message_id else "skipped"
