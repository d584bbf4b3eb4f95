"""What a complete answer does after its final write, from what its run holds in memory: the
chat's title once its first answer is in (chat/titles.py), and the turn into the search index of
every reader of the chat (repo/chat_search.py). Nothing here reads back the message the run has
just written, and neither step can undo the answer: a failure is logged, the answer stays complete."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cardchat.chat import titles
from cardchat.repo import chat_search

if TYPE_CHECKING:
    from cardchat.repo.db import Db
    from cardchat.schema.documents import Chat
    from cardchat.schema.messages import ChatMessage

log = logging.getLogger(__name__)


def after_answer(
    db: Db,
    chat_id: str,
    chat: Chat,
    history: Sequence[tuple[str, ChatMessage]],
    answer_id: str,
    answer: ChatMessage,
) -> None:
    """Answer `answer_id` (`answer`, as finally written) of `chat` is complete; `history` is the
    chat's messages as the run read them before it started (id, message)."""
    title = chat.title
    if answer.message_index == 1:
        question = next((m for _, m in history if m.message_index == 0), None)
        try:
            if question is not None:
                title = titles.retitle(db, chat_id, chat.owner, answer, question.content) or title
        except Exception:  # the first words stay
            log.warning("answer %s: the chat was not retitled", answer_id, exc_info=True)
    said = [(i, m) for i, m in history if m.message_index < answer.message_index] + [(answer_id, answer)]
    try:
        chat_search.index_answer(db, chat_id, chat.owner, title, said, answer.message_index)
    except Exception:  # the chat is found again by its next answer, which indexes the whole turn
        log.warning("answer %s: not added to the readers' search indexes", answer_id, exc_info=True)
