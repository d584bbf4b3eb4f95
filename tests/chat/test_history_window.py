"""The history a model sees before an answer, fitted to its context window (pure, no store)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from cardchat.chat.history_window import (
    MESSAGE_OVERHEAD_TOKENS,
    ContextTooSmall,
    byte_bounds,
    fit_history,
    history_before,
    output_reserve,
    window_for,
)
from cardchat.llm.models import MODELS, OFFLINE_MODEL_ID
from cardchat.schema.messages import ChatMessage

SPEC = MODELS[OFFLINE_MODEL_ID]


def test_history_keeps_questions_and_complete_answers_before_the_answer():
    msgs = [
        ChatMessage.from_dict(m)
        for m in [
            {"message_index": 3, "role": "user", "content": "q3", "status": "complete"},
            {"message_index": 0, "role": "user", "content": "q0", "status": "complete"},
            {"message_index": 1, "role": "assistant", "content": "a1", "status": "complete"},
            {"message_index": 2, "role": "assistant", "content": "partial", "status": "failed"},
            {"message_index": 4, "role": "assistant", "content": "", "status": "streaming"},
        ]
    ]
    assert history_before(msgs, 4) == [
        {"role": "user", "content": "q0"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q3"},
    ]


def _history(n: int) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(n)]


def test_fit_history_keeps_everything_that_fits():
    window = fit_history(_history(5), [100] * 5, 1000, SPEC)
    assert window.dropped == 0 and len(window.messages) == 5
    assert window.max_tokens == output_reserve(SPEC) == 1024


def test_fit_history_drops_whole_exchanges_from_the_oldest():
    size = 4900
    budget = SPEC.context_window - 2000 - output_reserve(SPEC)
    fits = budget // (size + MESSAGE_OVERHEAD_TOKENS)
    history = _history(9)
    window = fit_history(history, [size] * 9, 2000, SPEC)
    # dropping 3 would leave 6 that fit, but they would start on an answer: a 4th goes too
    assert fits == 6 and window.dropped == 4
    assert window.messages == history[4:] and window.messages[0]["role"] == "user"


def test_fit_history_never_drops_the_newest_message():
    history = _history(3)
    big = SPEC.context_window - 1500
    window = fit_history(history, [10, 10, big], 1000, SPEC)
    assert window.dropped == 2 and window.messages == history[2:]
    # what is left for the answer is handed to the provider as its budget
    assert window.max_tokens == SPEC.context_window - 1000 - big - MESSAGE_OVERHEAD_TOKENS
    with pytest.raises(ContextTooSmall):
        fit_history(history, [10, 10, SPEC.context_window], 0, SPEC)


def test_reserve_is_the_output_limit_capped_at_a_quarter_of_the_window():
    assert output_reserve(SPEC) == SPEC.max_output_tokens == 1024
    greedy = replace(SPEC, context_window=128_000, max_output_tokens=100_000)
    assert output_reserve(greedy) == 32_000


def test_window_counts_tokens_only_when_the_byte_bound_does_not_fit():
    calls: list[int] = []

    def count(texts, tokenizer):
        from cardchat.llm.tokens import count_tokens

        calls.append(len(texts))
        return count_tokens(texts, tokenizer)

    msgs = [
        ChatMessage(
            chat="c",
            message_index=i,
            role="user" if i % 2 == 0 else "assistant",
            status="complete",
            content=f"message {i} " + "tide " * 3000,
        )
        for i in range(9)
    ]
    short = window_for(msgs[-1:], 9, 0, SPEC, count)
    assert (short.dropped, calls) == (0, [])  # fits by the bound: no tokenizer
    long = window_for(msgs, 9, 0, SPEC, count)
    assert calls == [9]
    # "tide " is one token: 3,000+ tokens a message, 15,000+ bytes by the bound
    assert long.dropped == 0
    assert byte_bounds(["héllo"], "estimate-claude") == [math.ceil(6 * 1.35)]
