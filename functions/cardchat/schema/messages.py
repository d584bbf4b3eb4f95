"""The shapes of a chat's messages and of an answer's streaming chunks: one definition each, like
schema/documents.py, whose helpers they share; apart so neither outgrows a reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from cardchat.schema.documents import SCRATCH_TTL, Role, Status, _dict, now


@dataclass
class Usage:
    """What a provider counted for one answer. Whole, it is the owner's alone (accounts.AnswerUsage):
    the prompt's counts grow with the hidden background."""

    input_tokens: int = 0  # the whole prompt, cached tokens included
    output_tokens: int = 0
    # of input_tokens, those the provider read from / wrote to its prompt cache,
    # which it bills at other prices (models.PRICES); 0 where it reports none
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    # our count, not the provider's (it sent none: some OpenAI-compatible servers, a cut-off stream)
    estimated: bool = False


@dataclass
class OutputUsage:
    """ChatMessage.usage: of an answer's Usage, what every reader of the chat may read."""

    output_tokens: int = 0


@dataclass
class ChatMessage:
    """chat_messages/{message_id}: read by every reader of the chat (its owner, its viewers, anyone
    once it is published), so nothing here measures the hidden background: of an answer's usage,
    only its output tokens (the rest is in accounts.AnswerUsage, the owner's)."""

    chat: str
    message_index: int
    role: Role
    content: str
    status: Status
    timestamp: datetime = field(default_factory=now)
    model: str | None = None
    # engine bookkeeping (assistant messages)
    run_id: str | None = None
    lease_expires: datetime | None = None
    attempts: int = 0
    redrives: int = 0  # times the sweeper put it back to `ready` after its run died (generation/sweeper.py)
    usage: OutputUsage | None = None
    timings: dict[str, float] | None = None
    error: str | None = None  # a fixed headline (providers/headlines.py), never provider text
    dropped_turns: int = 0  # oldest turns left out to fit the window (SPA shows a notice)
    cut_off: str | None = None  # why a complete answer stops early: "time_limit" (SPA shows a notice)
    # while the engine waits to ask a busy provider again: why, and until when (SPA shows it)
    provider_wait: dict[str, Any] | None = None  # {"reason": a fixed headline, "until": datetime, "call": n}
    uncited_claims: int | None = None  # a complete answer's claims with no citation (generation/claims.py)
    sources: list[int] | None = None  # the numbers it cites that name a card (claims.citations), never which card
    coverage: str | None = None  # a complete answer's: do the cards cover its question (generation/coverage.py)
    # a complete answer's verdict per (claim, cited [n]) (generation/citation_checks.py)
    citation_checks: list[dict[str, Any]] | None = None
    # admitted on the chat owner's own API key (no daily cap, nothing reserved): the run may use
    # only that key, never fall back to the deployment's (own_keys.run_key)
    own_key: bool = False

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ChatMessage:
        usage = d.get("usage")
        return cls(
            chat=d.get("chat") or "",
            message_index=int(d.get("message_index") or 0),
            role=d.get("role") or "user",
            content=d.get("content") or "",
            status=d.get("status") or "ready",
            timestamp=d.get("timestamp") or now(),
            model=d.get("model"),
            run_id=d.get("run_id"),
            lease_expires=d.get("lease_expires"),
            attempts=int(d.get("attempts") or 0),
            redrives=int(d.get("redrives") or 0),
            usage=OutputUsage(int(usage.get("output_tokens") or 0)) if usage else None,
            timings=d.get("timings"),
            error=d.get("error"),
            dropped_turns=int(d.get("dropped_turns") or 0),
            cut_off=d.get("cut_off"),
            provider_wait=d.get("provider_wait"),
            uncited_claims=d.get("uncited_claims"),
            sources=d.get("sources"),
            coverage=d.get("coverage"),
            citation_checks=d.get("citation_checks"),
            own_key=d.get("own_key") is True,
        )


@dataclass(frozen=True)
class AnswerTimings:
    """A complete answer's `timings` (ChatMessage.timings), in seconds: to its first token (the
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


@dataclass(frozen=True)
class FinalAnswer:
    """A run's last write to its answer, built by the engine (generation/completion.py, a failure in
    generation/engine.py) and turned into the message's fields by repo/messages.finish alone. A
    complete answer carries what every reader of the chat may read of it (so nothing that measures
    the hidden background); a failed one only the text it kept and a fixed headline, its stub's
    other fields (its model) left as they were."""

    status: Literal["complete", "failed"]
    content: str
    error: str | None = None  # a fixed headline (providers/headlines.py), never provider text
    model: str | None = None
    usage: OutputUsage | None = None
    uncited_claims: int | None = None
    sources: list[int] = field(default_factory=list)  # the numbers it cites that name a card
    coverage: str | None = None
    # {"sentence", "n", "verdict"} per cited claim and card; None when the checks failed (none written)
    citation_checks: list[dict[str, Any]] | None = None
    timings: AnswerTimings | None = None
    dropped_turns: int = 0
    cut_off: str | None = None

    @classmethod
    def failed(cls, error: str, partial: str) -> FinalAnswer:
        """A failed answer: `error` a fixed headline, `partial` the text streamed before it."""
        return cls(status="failed", content=partial, error=error)


@dataclass
class StreamChunk:
    """chat_messages_streaming/{message_id}_{index:06d}: coalesced deltas, deleted at the answer's end or by TTL."""

    chat: str
    message: str
    message_index: int
    index: int
    content: str
    timestamp: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return {**_dict(self), "expires": self.timestamp + SCRATCH_TTL}  # the TTL policy's field
