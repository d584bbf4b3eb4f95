"""One run of one answer (generation/engine.py): what it holds from taking the answer to its final
write, and the writes it makes as the run that owns the message (chunks, lease renewals, the final
write), each refused once another run owns it."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from cardchat.generation import accounting
from cardchat.repo import messages as messages_repo
from cardchat.schema.accounts import AnswerUsage
from cardchat.schema.documents import Chat, ChatPrivate
from cardchat.schema.messages import ChatMessage, FinalAnswer, StreamChunk, Usage

if TYPE_CHECKING:
    from cardchat.chat.history_window import Window
    from cardchat.generation.chunk_writer import StreamWriter
    from cardchat.generation.look_further import LookFurther
    from cardchat.llm.models import ModelSpec
    from cardchat.repo.db import Db

#: Attempts per chunk write before the run gives up (transient store errors).
WRITE_ATTEMPTS = 3

#: What a complete answer does next (generation/answered.py), from the run's chat, history and answer.
AfterAnswer = Callable[["Db", str, Chat, Sequence[tuple[str, ChatMessage]], str, ChatMessage], None]


class Run:
    """One generation attempt of one message, owning it through `run_id`."""

    def __init__(
        self,
        db: Db,
        message_id: str,
        msg: ChatMessage,
        run_id: str,
        lease: float,
        now: Callable[[], datetime],
        sleep: Callable[[float], None],
    ) -> None:
        self.db = db
        self.message_id = message_id
        self.msg = msg
        self.run_id = run_id
        self.lease = lease
        self.now = now
        self.sleep = sleep
        self.owner: str | None = None  # whose daily tokens this run spends
        self.clock: Callable[[], float] = time.monotonic
        self.started = 0.0
        # what _prepare finds and the stream fills in
        self.chat = Chat(owner="", title="", model="")
        self.history: list[tuple[str, ChatMessage]] = []  # the chat's messages (id, message) as the run read them
        self.private = ChatPrivate.from_dict({})  # the one read of it, as the context steps left it
        self.spec: ModelSpec | None = None
        self.window: Window | None = None
        self.background = ""
        self.background_tokens = 0
        self.secrets: list[str | None] = []
        self.api_key: str | None = None  # the chat owner's own key (access/own_keys.py), else None
        self.base_url: str | None = None  # their own OpenAI-compatible endpoint's, beside that key
        self.writer: StreamWriter | None = None
        self.search: LookFurther | None = None  # the search_cards tool, when the chat's owner turned it on
        self.parts: list[str] = []
        self.usage: Usage | None = None
        self.ttft: float | None = None
        self.retries = 0
        self.cut_off: str | None = None
        self.then: AfterAnswer | None = None

    def elapsed(self) -> float:
        return self.clock() - self.started

    def spent(self) -> int:
        """Tokens so far, once a provider is called."""
        if self.spec is None or self.window is None:
            return 0
        return accounting.spent(self.spec, self.window.messages, self.background_tokens, self.parts, self.usage)

    def lease_end(self) -> datetime:
        return self.now() + timedelta(seconds=self.lease)

    def write_chunk(self, index: int, text: str, renew: bool) -> None:
        chunk = StreamChunk(
            chat=self.msg.chat,
            message=self.message_id,
            message_index=self.msg.message_index,
            index=index,
            content=text,
            timestamp=self.now(),
        )
        self._retrying(
            lambda: messages_repo.write_chunk(
                self.db, self.message_id, self.run_id, chunk, self.lease_end() if renew else None
            )
        )

    def renew(self, fields: dict[str, Any] | None = None) -> None:
        self._retrying(
            lambda: messages_repo.renew_lease(self.db, self.message_id, self.run_id, self.lease_end(), fields)
        )

    def _retrying(self, write: Callable[[], None]) -> None:
        # Chunk writes are idempotent (fixed document id), so repeating one
        # whose commit may or may not have landed is safe.
        for attempt in range(WRITE_ATTEMPTS):
            try:
                write()
                return
            except messages_repo.LostOwnership:
                raise
            except Exception:
                if attempt == WRITE_ATTEMPTS - 1:
                    raise
                self.sleep(0.2 * 3**attempt)

    def finish(
        self, answer: FinalAnswer, public_citations: Mapping[str, str] | None = None, record: AnswerUsage | None = None
    ) -> None:
        """The run's final write, in one transaction: its `answer`; for a complete one the chat's
        `public_citations` it adds, and its answer_usage `record` with what that adds to its owner's day."""
        day = accounting.usage_day(record, answer.model or "", self.now())
        chat_id = self.msg.chat if answer.status == "complete" else None
        messages_repo.finish(
            self.db, self.message_id, self.run_id, answer, chat_id, public_citations, day, record, when=self.now()
        )
        accounting.log_answer(self.message_id, answer, self.spec, self.msg, record)
