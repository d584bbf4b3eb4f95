"""A chat's turns: posting a message and retrying a failed answer (which earlier turns fit
the model's context window: history_window.py).

Posting appends the user's message and an assistant stub (`ready`) in one
transaction on the chat document; once it lands, the turn's next step asks for
the answer's run (start_answers: a task for generateAnswer, repo/answer_tasks.py). Only one
answer is ever in flight per chat: a new message is refused until the last
answer is complete, so turns never interleave.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from cardchat.access.permissions import require_owner
from cardchat.access.ratelimit import Limits, admission
from cardchat.chat.history_window import said_before, token_bound, turn_budget
from cardchat.errors import FailedPrecondition, NotFound
from cardchat.ids import new_message_id
from cardchat.llm.models import ModelSpec, spec_of
from cardchat.repo import answer_tasks
from cardchat.repo import messages as messages_repo
from cardchat.repo.messages import ResetDecision, TurnDecision
from cardchat.schema.accounts import TokenReservation
from cardchat.schema.documents import LIVE_STATUSES, RETRYABLE_STATUSES, STALLED_WITHOUT_LEASE, Chat
from cardchat.schema.documents import now as utc_now
from cardchat.schema.messages import ChatMessage

if TYPE_CHECKING:
    from cardchat.repo.db import Db

#: How long a `ready` stub may wait for a run to take it. A task lost
#: before it runs (its enqueue failing, its instance dying) would otherwise
#: leave the stub waiting for ever, with retry and new messages refused.
READY_LEASE = timedelta(seconds=120)


def is_stalled(msg: ChatMessage, now: datetime) -> bool:
    """An answer whose lease ran out: left `streaming` (its generator died) or
    left `ready` (no run ever took it). The rule lives in
    common/collections.json, which the SPA's messagestate.ts reads too."""
    if msg.status not in LIVE_STATUSES:
        return False
    if msg.lease_expires is None:
        return msg.status in STALLED_WITHOUT_LEASE
    return msg.lease_expires <= now


def may_retry(msg: ChatMessage, now: datetime) -> bool:
    """What retryMessage accepts, and so when the SPA offers Retry."""
    return msg.status in RETRYABLE_STATUSES or is_stalled(msg, now)


def _refuse_unfinished(last: ChatMessage | None, now: datetime) -> None:
    if last is None or last.role != "assistant" or last.status == "complete":
        return
    if last.status == "failed":
        raise FailedPrecondition("the last answer failed: retry it before sending a new message")
    if is_stalled(last, now):
        raise FailedPrecondition("the last answer stopped before it finished: retry it before sending a new message")
    raise FailedPrecondition("the last answer is still being written: wait for it to finish")


def question_and_stub(
    chat_id: str, index: int, text: str, model: str | None, when: datetime, own_key: bool = False
) -> tuple[ChatMessage, ChatMessage]:
    """A user's question at `index` and the answer stub after it, `ready` for
    the engine with READY_LEASE for a run to take it in; `own_key`: admitted on the
    owner's own key (Limits.own_key), which alone may pay for it."""
    question = ChatMessage(
        chat=chat_id, message_index=index, role="user", content=text, status="complete", timestamp=when
    )
    stub = ChatMessage(
        chat=chat_id,
        message_index=index + 1,
        role="assistant",
        content="",
        status="ready",
        timestamp=when,
        model=model,
        lease_expires=when + READY_LEASE,
        own_key=own_key,
    )
    return question, stub


def start_answers(db: Db, written: Sequence[tuple[str, ChatMessage]]) -> None:
    """The step after a commit that wrote `written` (id, message): a run asked for each answer
    it made `ready` (repo/answer_tasks.py). An enqueue that fails loses nothing: the stub's
    READY_LEASE runs out and the sweeper re-drives it (generation/sweeper.py)."""
    answer_tasks.start(db, [mid for mid, m in written if m.role == "assistant" and m.status == "ready"])


def _spec(chat: Chat) -> ModelSpec:
    spec = spec_of(chat.model)
    if spec is None:
        raise FailedPrecondition(f"the chat's model {chat.model!r} is not available any more")
    return spec


def _background_tokens(db: Db, chat_id: str) -> int:
    """Fixed when the chat is made, so read before the transaction."""
    from cardchat.repo.chats import background_tokens

    return background_tokens(db, chat_id) or 0


def post_message(
    db: Db, uid: str, chat_id: str, text: str, now: datetime | None = None, limits: Limits | None = None
) -> str:
    """Append the user's message (parsed: parsing.requests.post_message) and an
    assistant stub; returns the stub's id. The caller's rate-limit slot and
    token reservation are taken in the same transaction, after the checks."""
    when = now or utc_now()
    rules = limits or Limits.from_env()
    stub_id = new_message_id()
    bg_tokens = _background_tokens(db, chat_id)

    def decide(chat: dict[str, Any] | None, messages: list[ChatMessage]) -> TurnDecision:
        owned = Chat.from_dict(require_owner(chat, uid))
        n = owned.message_count
        _refuse_unfinished(next((m for m in messages if m.message_index == n - 1), None), when)
        spec = _spec(owned)
        user, stub = question_and_stub(chat_id, n, text, spec.id, when, rules.own_key)
        said = [m.content for m in said_before(messages, n)] + [text]
        bound = token_bound(spec, bg_tokens + turn_budget(spec), said)
        hold = TokenReservation(message=stub_id, attempt=1, tokens=bound, created=when)
        return TurnDecision(
            messages=[(new_message_id(), user), (stub_id, stub)],
            chat_fields={"message_count": n + 2, "last_updated": when},
            admission=admission(uid, when, rules, hold),
        )

    messages_repo.append_turn(db, chat_id, decide, stub_id)
    answer_tasks.start(db, [stub_id])  # landed (or found landed): its run
    return stub_id


def retry_message(db: Db, uid: str, message_id: str, now: datetime | None = None, limits: Limits | None = None) -> str:
    """Put a failed or stalled answer back to `ready` (same place in the chat),
    which starts a new generation; returns the message id. Admitted (slot and
    reservation) in the same transaction."""
    when = now or utc_now()
    rules = limits or Limits.from_env()
    found = messages_repo.get_message(db, message_id)
    bg_tokens = _background_tokens(db, found.chat) if found and found.chat else 0

    def decide(answer: ChatMessage | None, chat: dict[str, Any] | None, messages: list[ChatMessage]) -> ResetDecision:
        if answer is None:
            raise NotFound("message not found")
        owned = Chat.from_dict(require_owner(chat, uid))
        if answer.role != "assistant":
            raise FailedPrecondition("only an answer can be retried")
        if not may_retry(answer, when):
            raise FailedPrecondition(f"only a failed or stopped answer can be retried; this one is {answer.status}")
        spec = _spec(owned)
        said = [m.content for m in said_before(messages, answer.message_index)]
        bound = token_bound(spec, bg_tokens + turn_budget(spec), said)
        # the next take_run makes it attempt attempts + 1: the run that settles this
        hold = TokenReservation(message=message_id, attempt=answer.attempts + 1, tokens=bound, created=when)
        fields = {
            "status": "ready",
            "content": "",
            "error": None,
            "run_id": None,
            "lease_expires": when + READY_LEASE,
            "usage": None,
            "timings": None,
            "dropped_turns": 0,
            "cut_off": None,
            "provider_wait": None,
            "redrives": 0,  # the user's retry: the sweeper may re-drive this attempt again
            "own_key": rules.own_key,  # admitted anew: on whichever key pays now
        }
        return ResetDecision(fields=fields, admission=admission(uid, when, rules, hold))

    messages_repo.reset_message(db, message_id, decide)
    answer_tasks.start(db, [message_id])  # back to `ready`: its new run
    return message_id
