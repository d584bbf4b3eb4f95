"""What an answer cost and how it went, recorded when its run finishes: its
timings (its counts and citations: generation/completion.py); the owner's
answer_usage (the prompt's counts and the cost, which measure the hidden
background, so never on the message that every reader of the chat reads) and
daily aggregate, both written in the finish transaction (repo.messages.finish);
and one structured log line per answer that Cloud Logging turns into metrics
(docs/operations.md, "Metrics")."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat.llm.models import ModelSpec, cost_usd
from cardchat.schema.accounts import AnswerUsage, UsageDay
from cardchat.schema.messages import AnswerTimings, ChatMessage, FinalAnswer, Usage

if TYPE_CHECKING:
    from cardchat.providers.base import Message

#: jsonPayload.event of the per-answer log line (the log-based metrics filter on it).
LOG_EVENT = "cardchat.answer"


def answer_usage(
    owner: str | None, chat: str, spec: ModelSpec, usage: Usage, card_searches: int = 0
) -> AnswerUsage | None:
    """A complete answer's answer_usage document: the whole of `usage`, its cost and the searches
    its model ran (generation/look_further.py); None without an owner."""
    if not owner:
        return None
    cost = cost_usd(
        spec.id, usage.input_tokens, usage.output_tokens, usage.cached_input_tokens, usage.cache_write_tokens
    )
    return AnswerUsage(owner=owner, chat=chat, usage=usage, cost_usd=cost, card_searches=card_searches)


def estimated_usage(spec: ModelSpec, messages: list[Message], background_tokens: int, content: str) -> Usage:
    """Our count of a call the provider did not count (cut off before its count arrived, or a
    compatible server that sends none)."""
    from cardchat.llm.tokens import count_tokens

    counts = count_tokens([m["content"] for m in messages] + [content], spec.tokenizer)
    return Usage(input_tokens=background_tokens + sum(counts[:-1]), output_tokens=counts[-1], estimated=True)


def spent(
    spec: ModelSpec, messages: list[Message], background_tokens: int, parts: list[str], usage: Usage | None
) -> int:
    """What a run cost, for its owner's daily limit: the provider's count,
    else ours once the provider has started answering (a run failed, cut off
    or superseded mid-stream); a call refused before any text is not billed."""
    if usage is not None and usage.input_tokens + usage.output_tokens:
        return usage.input_tokens + usage.output_tokens
    if not parts:
        return 0
    estimate = estimated_usage(spec, messages, background_tokens, "".join(parts))
    return estimate.input_tokens + estimate.output_tokens


def timings(ttft: float | None, total: float, chunks: int, retries: int) -> AnswerTimings:
    """A complete answer's timings, to the millisecond; `ttft` None: no token came, the whole time."""
    return AnswerTimings(round(ttft if ttft is not None else total, 3), round(total, 3), chunks, retries)


def usage_day(record: AnswerUsage | None, model: str, now: datetime) -> UsageDay | None:
    """What a complete answer of `model` (its answer_usage: `record`) adds to its owner's day; None for any other."""
    if record is None:
        return None
    return UsageDay(
        owner=record.owner,
        day=now.date().isoformat(),
        model=model,
        answers=1,
        input_tokens=record.usage.input_tokens,
        output_tokens=record.usage.output_tokens,
        cost_usd=record.cost_usd or 0.0,
    )


def log_line(
    message_id: str, answer: FinalAnswer, model: str, attempts: int, record: AnswerUsage | None = None
) -> dict[str, Any]:
    """The answer's figures (the server's log, which no user reads), never its content, question or error text."""
    timings = answer.timings
    return {
        "severity": "INFO" if answer.status == "complete" else "WARNING",
        "message": f"answer {message_id} {answer.status}",
        "event": LOG_EVENT,
        "message_id": message_id,
        "model": model,
        "status": answer.status,
        "input_tokens": record.usage.input_tokens if record else None,
        "output_tokens": record.usage.output_tokens if record else None,
        "cost_usd": record.cost_usd if record else None,
        "ttft_s": timings.ttft if timings else None,
        "total_s": timings.total if timings else None,
        "attempts": attempts,
        "provider_retries": timings.provider_retries if timings else None,
        "uncited_claims": answer.uncited_claims,
        "cut_off": answer.cut_off,
    }


def log_answer(
    message_id: str, answer: FinalAnswer, spec: ModelSpec | None, msg: ChatMessage, record: AnswerUsage | None
) -> None:
    """One JSON line on stdout for the run's final write (`msg` as the run took it, `record` its
    answer_usage): Cloud Logging stores it as jsonPayload."""
    model = spec.id if spec else str(msg.model or "")
    line = log_line(message_id, answer, model, msg.attempts, record)
    print(json.dumps(line, default=str), file=sys.stdout, flush=True)
