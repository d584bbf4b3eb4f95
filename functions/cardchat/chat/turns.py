"""A chat's turns: posting a message, retrying a failed answer, and choosing
which earlier turns fit the model's context window.

Posting appends the user's message and an assistant stub (`ready`) in one
transaction on the chat document; the Firestore trigger on the stub starts
the engine. Only one answer is ever in flight per chat: a new message is
refused until the last answer is complete, so turns never interleave.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from cardchat.access.permissions import require_owner
from cardchat.access.ratelimit import Limits, admit
from cardchat.errors import FailedPrecondition, NotFound
from cardchat.ids import new_message_id
from cardchat.llm.models import MODELS, ModelSpec
from cardchat.providers.base import Message
from cardchat.repo import messages as repo
from cardchat.schema.accounts import TokenReservation
from cardchat.schema.documents import LIVE_STATUSES, RETRYABLE_STATUSES, STALLED_WITHOUT_LEASE, Chat, ChatMessage
from cardchat.schema.documents import now as utc_now

#: Tokens a provider adds around each message (role markers, separators).
MESSAGE_OVERHEAD_TOKENS = 8


#: How long a `ready` stub may wait for its generator to claim it. Firestore
#: triggers are not retried, so a delivery lost to a failed cold start would
#: otherwise leave the stub waiting for ever, with retry and new messages refused.
READY_LEASE = timedelta(seconds=120)


def is_stalled(msg: dict[str, Any], now: datetime) -> bool:
    """An answer whose lease ran out: left `streaming` (its generator died) or
    left `ready` (no generator ever claimed it). The rule lives in
    common/collections.json, which the SPA's messagestate.ts reads too."""
    if msg.get("status") not in LIVE_STATUSES:
        return False
    lease = msg.get("lease_expires")
    if lease is None:
        return msg.get("status") in STALLED_WITHOUT_LEASE
    return bool(lease <= now)


def may_retry(msg: dict[str, Any], now: datetime) -> bool:
    """What retryMessage accepts, and so when the SPA offers Retry."""
    return msg.get("status") in RETRYABLE_STATUSES or is_stalled(msg, now)


def _refuse_unfinished(last: dict[str, Any] | None, now: datetime) -> None:
    if last is None or last.get("role") != "assistant" or last.get("status") == "complete":
        return
    if last.get("status") == "failed":
        raise FailedPrecondition("the last answer failed: retry it before sending a new message")
    if is_stalled(last, now):
        raise FailedPrecondition("the last answer stopped before it finished: retry it before sending a new message")
    raise FailedPrecondition("the last answer is still being written: wait for it to finish")


def question_and_stub(
    chat_id: str, index: int, text: str, model: str | None, when: datetime, own_key: bool = False
) -> tuple[ChatMessage, ChatMessage]:
    """A user's question at `index` and the answer stub after it, `ready` for
    the engine with READY_LEASE to be claimed in; `own_key`: admitted on the
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


def _spec(chat: Chat) -> ModelSpec:
    spec = MODELS.get(chat.model)
    if spec is None:
        raise FailedPrecondition(f"the chat's model {chat.model!r} is not available any more")
    return spec


def _background_tokens(db: Any, chat_id: str) -> int:
    """Fixed when the chat is made, so read before the transaction."""
    from cardchat.repo.chats import background_tokens

    return background_tokens(db, chat_id) or 0


def post_message(
    db: Any, uid: str, chat_id: str, text: str, now: datetime | None = None, limits: Limits | None = None
) -> str:
    """Append the user's message (parsed: parsing.requests.post_message) and an
    assistant stub; returns the stub's id. The caller's rate-limit slot and
    token reservation are taken in the same transaction, after the checks."""
    when = now or utc_now()
    rules = limits or Limits.from_env()
    stub_id = new_message_id()
    bg_tokens = _background_tokens(db, chat_id)

    def decide(chat: dict[str, Any] | None, messages: list[dict[str, Any]]) -> repo.TurnDecision:
        owned = Chat.from_dict(require_owner(chat, uid))
        n = owned.message_count
        _refuse_unfinished(next((m for m in messages if m.get("message_index") == n - 1), None), when)
        spec = _spec(owned)
        user, stub = question_and_stub(chat_id, n, text, spec.id, when, rules.own_key)
        said = [m.get("content") or "" for m in said_before(messages, n)] + [text]
        bound = token_bound(spec, bg_tokens + turn_budget(spec), said)
        hold = TokenReservation(message=stub_id, attempt=1, tokens=bound, created=when)
        return (
            [(new_message_id(), user.to_dict()), (stub_id, stub.to_dict())],
            {"message_count": n + 2, "last_updated": when},
            (uid, lambda quota: admit(quota, when, rules, hold)),
        )

    repo.append_turn(db, chat_id, decide)
    return stub_id


def retry_message(db: Any, uid: str, message_id: str, now: datetime | None = None, limits: Limits | None = None) -> str:
    """Put a failed or stalled answer back to `ready` (same place in the chat),
    which starts a new generation; returns the message id. Admitted (slot and
    reservation) in the same transaction."""
    when = now or utc_now()
    rules = limits or Limits.from_env()
    found = repo.get_message(db, message_id)
    bg_tokens = _background_tokens(db, found["chat"]) if found and found.get("chat") else 0

    def decide(
        msg: dict[str, Any] | None, chat: dict[str, Any] | None, messages: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], Any]:
        if msg is None:
            raise NotFound("message not found")
        owned = Chat.from_dict(require_owner(chat, uid))
        answer = ChatMessage.from_dict(msg)
        if answer.role != "assistant":
            raise FailedPrecondition("only an answer can be retried")
        if not may_retry(msg, when):
            raise FailedPrecondition(f"only a failed or stopped answer can be retried; this one is {answer.status}")
        spec = _spec(owned)
        said = [m.get("content") or "" for m in said_before(messages, answer.message_index)]
        bound = token_bound(spec, bg_tokens + turn_budget(spec), said)
        # the next claim makes it attempt attempts + 1: the run that settles this
        hold = TokenReservation(message=message_id, attempt=answer.attempts + 1, tokens=bound, created=when)
        return {
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
        }, (uid, lambda quota: admit(quota, when, rules, hold))

    repo.reset_message(db, message_id, decide)
    return message_id


# --- history windowing -------------------------------------------------------


class ContextTooSmall(Exception):
    """Even with every earlier turn dropped, the request does not fit."""


@dataclass(frozen=True)
class Window:
    messages: list[Message]
    dropped: int  # earlier messages left out, oldest first
    max_tokens: int  # output budget handed to the provider


def said_before(messages: Sequence[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """The messages the conversation holds before `index`: every user message
    and every complete answer, oldest first. A failed or unfinished answer's
    partial text is not something the model said."""
    return [
        m
        for m in sorted(messages, key=lambda m: m.get("message_index", 0))
        if m.get("message_index", 0) < index
        and (m.get("role") == "user" or (m.get("role") == "assistant" and m.get("status") == "complete"))
    ]


def history_before(messages: Sequence[dict[str, Any]], index: int) -> list[Message]:
    """The conversation a model sees before answer `index` (see said_before)."""
    return [{"role": m["role"], "content": m.get("content") or ""} for m in said_before(messages, index)]


def output_reserve(spec: ModelSpec) -> int:
    """Room kept for the answer: the model's output limit, but never more than
    a quarter of its window (a 64k-output model must not starve the history)."""
    return min(spec.max_output_tokens, spec.context_window // 4)


def turn_budget(spec: ModelSpec) -> int:
    """Tokens one follow-up may add to the background (chat/turn_context.py):
    a quarter of the window, at most 16,000. Every keyed model's window is
    ≥ 128k, so it gets the 16,000 (~40 cards); the quarter binds only the
    offline model's 32k window (8,192 tokens, ~18 cards): at an eighth
    (4,096, ~10 cards) a third of the follow-ups that missed their answering
    card had ranked it within the best 16 and lost it to the budget
    (scripts/eval's per-turn metric, README). Reserved with the answer's
    tokens: its run adds them before the provider is called."""
    return min(spec.context_window // 4, 16_000)


def fit_history(
    history: list[Message],
    counts: Sequence[int],
    background_tokens: int,
    spec: ModelSpec,
) -> Window:
    """Drop the oldest turns until background + history + the output reserve
    fit the window. The background and the newest (last) message always stay;
    the kept history always starts with a user message."""
    if len(counts) != len(history):
        raise ValueError("one token count per message")
    sizes = [c + MESSAGE_OVERHEAD_TOKENS for c in counts]
    reserve = output_reserve(spec)
    budget = spec.context_window - background_tokens - reserve
    total = sum(sizes)
    start = 0
    last = len(history) - 1
    while start < last and (total > budget or history[start]["role"] != "user"):
        total -= sizes[start]
        start += 1
    if total > budget:
        # Give the answer what is left if that is still a useful length.
        room = spec.context_window - background_tokens - total
        if room < min(reserve, 256):
            raise ContextTooSmall("the question and the chat's background do not fit this model's context window")
        reserve = room
    return Window(messages=list(history[start:]), dropped=start, max_tokens=reserve)


def byte_bounds(texts: Sequence[str], tokenizer: str) -> list[int]:
    """An upper bound on each text's token count without loading a tokenizer:
    a byte-level BPE token covers at least one UTF-8 byte, and the estimated
    tokenizers scale an o200k count by a known factor."""
    from cardchat.llm.tokens import ESTIMATE_FACTORS

    factor = ESTIMATE_FACTORS.get(tokenizer, 1.0)
    return [math.ceil(len(t.encode("utf-8")) * factor) for t in texts]


def window_for(
    messages: Sequence[dict[str, Any]],
    index: int,
    background_tokens: int,
    spec: ModelSpec,
    count: Callable[[list[str], str], list[int]] | None = None,
) -> Window:
    """The history for answer `index`, fitted to `spec`'s window.

    Loading a tokenizer costs seconds on a cold instance, all of it before
    the first token; most chats fit even by the byte bound, so the real count
    runs only when the bound says turns might have to go."""
    history = history_before(messages, index)
    texts = [m["content"] for m in history]
    try:
        bounded = fit_history(history, byte_bounds(texts, spec.tokenizer), background_tokens, spec)
        if bounded.dropped == 0 and bounded.max_tokens == output_reserve(spec):
            return bounded
    except ContextTooSmall:
        pass  # the bound is loose: only the real count can say
    if count is None:
        from cardchat.llm.tokens import count_tokens

        count = count_tokens
    return fit_history(history, count(texts, spec.tokenizer) if texts else [], background_tokens, spec)


def token_bound(spec: ModelSpec, background_tokens: int, texts: Sequence[str]) -> int:
    """The most one answer can cost, for its token reservation: what
    window_for can send (background and history by their byte bound, never
    more than the window leaves beside the answer) plus the output reserve.
    No tokenizer: admission stays cheap, and the bound only has to hold."""
    reserve = output_reserve(spec)
    history = sum(byte_bounds(texts, spec.tokenizer)) + MESSAGE_OVERHEAD_TOKENS * len(texts)
    return min(background_tokens + history, max(spec.context_window - reserve, background_tokens)) + reserve
