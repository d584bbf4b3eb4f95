"""What an answer cost and how it went, recorded when its run finishes:
the message's `usage` with its cost, `uncited_claims` and the cards it cites
(`sources`), the owner's daily aggregate (written in the finish transaction:
repo.messages.finish), and one structured log line per answer that Cloud
Logging turns into metrics (docs/operations.md, "Metrics")."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from cardchat.generation import claims
from cardchat.llm.models import ModelSpec, cost_usd
from cardchat.schema.accounts import UsageDay
from cardchat.schema.messages import Usage

#: jsonPayload.event of the per-answer log line (the log-based metrics filter on it).
LOG_EVENT = "cardchat.answer"


def answer_fields(spec: ModelSpec, usage: Usage, content: str, card_ids: Sequence[str]) -> dict[str, Any]:
    """A complete answer's `usage` (with its cost), `uncited_claims` and
    `sources`, its citations read against the background's `card_ids`."""
    return {
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cached_input_tokens": usage.cached_input_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
            "cost_usd": cost_usd(
                spec.id, usage.input_tokens, usage.output_tokens, usage.cached_input_tokens, usage.cache_write_tokens
            ),
        },
        "uncited_claims": claims.uncited_count(content, claims.citable(card_ids)),
        "sources": claims.sources(content, card_ids),
    }


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


def usage_day(owner: str | None, fields: dict[str, Any], now: datetime) -> UsageDay | None:
    """What a complete answer adds to its owner's day; None for anything else."""
    usage = fields.get("usage")
    if not owner or fields.get("status") != "complete" or not usage:
        return None
    return UsageDay(
        owner=owner,
        day=now.date().isoformat(),
        model=str(fields.get("model") or ""),
        answers=1,
        input_tokens=int(usage["input_tokens"]),
        output_tokens=int(usage["output_tokens"]),
        cost_usd=float(usage["cost_usd"]),
    )


def log_line(message_id: str, fields: dict[str, Any], model: str, attempts: int) -> dict[str, Any]:
    """The answer's figures, never its content, question or error text."""
    usage = fields.get("usage") or {}
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
        "cost_usd": usage.get("cost_usd"),
        "ttft_s": timings.get("ttft"),
        "total_s": timings.get("total"),
        "attempts": attempts,
        "provider_retries": timings.get("provider_retries"),
        "uncited_claims": fields.get("uncited_claims"),
        "cut_off": fields.get("cut_off"),
    }


def log_answer(message_id: str, fields: dict[str, Any], spec: ModelSpec | None, msg: dict[str, Any]) -> None:
    """One JSON line on stdout for the run's final write (`msg` as claimed):
    Cloud Logging stores it as jsonPayload."""
    model = spec.id if spec else str(msg.get("model") or "")
    line = log_line(message_id, fields, model, int(msg.get("attempts") or 0))
    print(json.dumps(line, default=str), file=sys.stdout, flush=True)
