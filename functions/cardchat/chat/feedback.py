"""rateAnswer: the chat owner's thumbs up or down, with an optional comment,
on a complete answer. Stored in answer_feedback, which
only the owner and admins read: visitors and viewers read the chat's
messages, so nothing of the rating goes on the message."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from cardchat.access.permissions import require_owner
from cardchat.errors import FailedPrecondition, NotFound
from cardchat.parsing.requests import RateAnswerRequest
from cardchat.repo import chats as chats_repo
from cardchat.repo import feedback as repo
from cardchat.repo import messages as messages_repo
from cardchat.schema.accounts import AnswerFeedback
from cardchat.schema.documents import MESSAGE_STATUS
from cardchat.schema.documents import now as utc_now

if TYPE_CHECKING:
    from cardchat.repo.db import Db


def rate_answer(db: Db, uid: str, request: RateAnswerRequest, now: datetime | None = None) -> None:
    msg = messages_repo.get_message(db, request.message_id)
    if msg is None:
        raise NotFound("message not found")
    require_owner(chats_repo.get_chat(db, msg.chat) if msg.chat else None, uid)
    if msg.role != "assistant":
        raise FailedPrecondition("only an answer can be rated, not a question")
    if msg.status != MESSAGE_STATUS["complete"]:
        raise FailedPrecondition(f"only a complete answer can be rated; this one is {msg.status}")
    if request.rating is None:
        repo.clear_feedback(db, request.message_id)
        return
    stamp = now or utc_now()
    feedback = AnswerFeedback(
        owner=uid,
        chat=msg.chat,
        message=request.message_id,
        rating=request.rating,
        comment=request.comment,
        model=msg.model or "",
        created=stamp,
        updated=stamp,
    )
    repo.put_feedback(db, request.message_id, feedback)
