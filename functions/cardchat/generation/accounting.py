"""What an answer cost and how it went, recorded when its run finishes:
the message's output tokens, `uncited_claims` and the cards it cites
(`sources`); the owner's answer_usage (the prompt's counts and the cost, which
measure the hidden background, so never on the message that every reader of
the chat reads) and daily aggregate, both written in the finish transaction
(repo.messages.finish); and one structured log line per answer that Cloud
Logging turns into metrics (docs/operations.md, "Metrics")."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat.generation import claims
from cardchat.llm.models import ModelSpec, cost_usd
from cardchat.schema.accounts import AnswerUsage, UsageDay
from cardchat.schema.messages import ChatMessage, OutputUsage, Usage

if TYPE_CHECKING:
    from cardchat.providers.base import Message

#: jsonPayload.event of the per-answer log line (the log-based metrics filter on it).
LOG_EVENT = "cardchat.answer"


def answer_fields(usage: Usage, content: str, card_ids: Sequence[str]) -> dict[str, Any]:
    """A complete answer's `usage` as its readers see it (its output tokens), `uncited_claims`
    and `sources`, its citations read against the background's `card_ids`."""
    return {
        "usage": asdict(OutputUsage(usage.output_tokens)),
        "uncited_claims": claims.uncited_count(content, claims.citable(card_ids)),
        "sources": claims.sources(content, card_ids),
    }


def answer_usage(owner: str | None, chat: str, spec: ModelSpec, usage: Usage) -> AnswerUsage | None:
    """A complete answer's answer_usage document: the whole of `usage` and its cost; None without an owner."""
    if not owner:
        return None
    cost = cost_usd(
        spec.id, usage.input_tokens, usage.output_tokens, usage.cached_input_tokens, usage.cache_write_tokens
    )
    return AnswerUsage(owner=owner, chat=chat, usage=usage, cost_usd=cost)


def estimated_usage(spec: ModelSpec, messages: list[Message], background_tokens: int, content: str) -> Usage:
    """Our count of a call the provider did not count (cut off before its count arrived)."""
    from cardchat.llm.tokens import count_tokens

    counts = count_tokens([m["content"] for m in messages] + [content], spec.tokenizer)
    return Usage(input_tokens=background_tokens + sum(counts[:-1]), output_tokens=counts[-1])


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


@dataclass(frozen=True)
class AnswerTimings:
    """A complete answer's `timings` (chat_messages' field), in seconds: to its first token (the
    whole time when it had none), in all; its chunk writes and provider retries. Readers (the
    benchmarks) go through `of`, so a renamed field is a type error, not a missing key."""

    ttft: float
    total: float
    chunks: int
    provider_retries: int

    @classmethod
    def of(cls, message: dict[str, Any]) -> AnswerTimings | None:
        """The timings of a chat_messages document, if it has them."""
        t = message.get("timings")
        return cls(float(t["ttft"]), float(t["total"]), int(t["chunks"]), int(t["provider_retries"])) if t else None


def timings(ttft: float | None, total: float, chunks: int, retries: int) -> dict[str, Any]:
    """The `timings` field of a complete answer (AnswerTimings)."""
    return asdict(AnswerTimings(round(ttft if ttft is not None else total, 3), round(total, 3), chunks, retries))


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
        cost_usd=record.cost_usd,
    )


def log_line(
    message_id: str, fields: dict[str, Any], model: str, attempts: int, record: AnswerUsage | None = None
) -> dict[str, Any]:
    """The answer's figures (the server's log, which no user reads), never its content, question or error text."""
    usage = asdict(record.usage) if record else {}
    timings = fields.get("timings") or {}
    return {
        "severity": "INFO" if fields.get("status") == "complete" else "WARNING",
        "message": f"answer {message_id} {fields.get('status')}",
        "event": LOG_EVENT,
        "message_id": message_id,
        "model": model,
        "status": fields.get("status"),
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "cost_usd": record.cost_usd if record else None,
        "ttft_s": timings.get("ttft"),
        "total_s": timings.get("total"),
        "attempts": attempts,
        "provider_retries": timings.get("provider_retries"),
        "uncited_claims": fields.get("uncited_claims"),
        "cut_off": fields.get("cut_off"),
    }


def log_answer(
    message_id: str, fields: dict[str, Any], spec: ModelSpec | None, msg: ChatMessage, record: AnswerUsage | None
) -> None:
    """One JSON line on stdout for the run's final write (`msg` as the run took it, `record` its
    answer_usage): Cloud Logging stores it as jsonPayload."""
    model = spec.id if spec else str(msg.model or "")
    line = log_line(message_id, fields, model, msg.attempts, record)
    print(json.dumps(line, default=str), file=sys.stdout, flush=True)
