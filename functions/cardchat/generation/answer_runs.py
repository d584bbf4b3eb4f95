"""What generateAnswer does with an answer request (schema/messages.py AnswerRequest): run the
answer it names (engine.generate, whose claim makes a duplicate delivery or a stale request
harmless), then remove the request."""

from __future__ import annotations

from typing import Any

from cardchat.generation import engine
from cardchat.repo import answer_requests
from cardchat.repo import messages as messages_repo
from cardchat.schema.messages import AnswerRequest


def run_request(db: Any, request_id: str, request: dict[str, Any] | None) -> dict[str, Any] | None:
    """Generate the answer `request` names; the answer's message when it completed, else None."""
    message_id = AnswerRequest.from_dict(request).message if request is not None else ""
    try:
        if message_id and engine.generate(db, message_id) == "complete":
            return messages_repo.get_message(db, message_id)
        return None
    finally:
        answer_requests.remove(db, request_id)
