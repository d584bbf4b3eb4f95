"""The history a model sees before an answer: the earlier turns that fit its context window
beside the background and the room kept for the answer, the oldest dropped first. Used where
a turn is admitted (its token reservation: token_bound) and where it is answered (window_for),
so both hold a turn to the same window.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cardchat.llm.models import ModelSpec
from cardchat.providers.base import Message
from cardchat.schema.messages import ChatMessage

#: Tokens a provider adds around each message (role markers, separators).
MESSAGE_OVERHEAD_TOKENS = 8


class ContextTooSmall(Exception):
    """Even with every earlier turn dropped, the request does not fit."""


@dataclass(frozen=True)
class Window:
    messages: list[Message]
    dropped: int  # earlier messages left out, oldest first
    max_tokens: int  # output budget handed to the provider


def said_before(messages: Sequence[ChatMessage], index: int) -> list[ChatMessage]:
    """The messages the conversation holds before `index`: every user message
    and every complete answer, oldest first. A failed or unfinished answer's
    partial text is not something the model said."""
    return [
        m
        for m in sorted(messages, key=lambda m: m.message_index)
        if m.message_index < index and (m.role == "user" or (m.role == "assistant" and m.status == "complete"))
    ]


def history_before(messages: Sequence[ChatMessage], index: int) -> list[Message]:
    """The conversation a model sees before answer `index` (see said_before)."""
    return [{"role": m.role, "content": m.content} for m in said_before(messages, index)]


def output_reserve(spec: ModelSpec) -> int:
    """Room kept for the answer: the model's output limit, but never more than
    a quarter of its window (a 64k-output model must not starve the history)."""
    return min(spec.max_output_tokens, spec.context_window // 4)


def turn_budget(spec: ModelSpec) -> int:
    """Tokens one follow-up may add to the background (generation/turn_context.py):
    a quarter of the window, at most 16,000. Every keyed model's window is
    ≥ 128k, so it gets the 16,000; the quarter binds only the offline
    model's 32k window: at an eighth, follow-ups that missed their answering
    card had often ranked it among the best and lost it to the budget
    (scripts/eval's per-turn metric). Reserved with the answer's tokens: its
    run adds them before the provider is called."""
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
    messages: Sequence[ChatMessage],
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
