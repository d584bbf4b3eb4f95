"""What every model provider offers the engine: one streaming call, one error type.

A provider turns (model, messages, hidden background, token budget) into text
deltas and a final Usage, and turns every failure into a ProviderError: a
fixed headline (providers/headlines.py) a client may read, and the provider's own words,
scrubbed, for the server log only. The engine owns retries and decides by
`kind`, so SDK retries stay off.
"""

from __future__ import annotations

import email.utils
import os
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict

from cardchat.providers.headlines import headline
from cardchat.providers.scrub import scrub_error
from cardchat.providers.tools import CITATION, HELD_CHARS, MAX_ROUNDS, Search, ToolCall, ToolRound, run
from cardchat.schema.messages import Usage

if TYPE_CHECKING:
    import httpx2

    from cardchat.llm.models import ModelSpec


class Message(TypedDict):
    role: Literal["user", "assistant"]
    content: str


ErrorKind = Literal[
    "rate_limited",
    "overloaded",
    "auth",
    "bad_request",
    "blocked",
    "context_too_long",
    "timeout",
    "network",
    "incomplete",
    "provider",
    "not_configured",
    "unknown_model",
]
#: Kinds worth another attempt later (the engine's policy decides how often).
RETRYABLE_KINDS: frozenset[str] = frozenset(
    {"rate_limited", "overloaded", "timeout", "network", "incomplete", "provider"}
)
#: One call's time limits: a long answer streams for minutes, a dead host
#: should fail fast. The read timeout is the longest silence between two
#: bytes of a stream, so a provider that hangs fails the call after it
#: (CARDCHAT_PROVIDER_TIMEOUT_S overrides it: tests, a deployment's own bound).
READ_TIMEOUT_S = 180.0
READ_TIMEOUT_ENV = "CARDCHAT_PROVIDER_TIMEOUT_S"
CONNECT_TIMEOUT_S = 10.0


def read_timeout_s() -> float:
    raw = os.environ.get(READ_TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else READ_TIMEOUT_S
    except ValueError:
        value = 0.0
    if value <= 0:
        raise ValueError(f"{READ_TIMEOUT_ENV} must be a positive number of seconds, not {raw!r}")
    return value


def transport_failure(e: BaseException) -> Literal["timeout", "network"] | None:
    """ "timeout" or "network" for the HTTP library's transport failures (a
    read timed out, the connection dropped mid-stream), else None. The SDKs
    turn these into their own errors only while sending a request; met while
    reading a stream they come through as the HTTP library raised them."""
    for module in ("httpx2", "httpx"):
        lib = sys.modules.get(module)
        if lib is not None and isinstance(e, lib.TransportError):
            return "timeout" if isinstance(e, lib.TimeoutException) else "network"
    return None


#: Phrases providers use when the prompt does not fit the model's window.
_CONTEXT_SIGNS = (
    "context_length_exceeded",
    "context length",
    "context window",
    "prompt is too long",
    "too many tokens",
    "exceeds the maximum number of tokens",
    "input token count",
    "maximum number of tokens",
    "request_too_large",
)


class ProviderError(Exception):
    """A failed model call. `message` is its fixed headline, built from
    (provider, kind, HTTP status) only: it may be stored and shown. `detail`
    is the provider's own words, already scrubbed, for the server log only."""

    def __init__(
        self,
        kind: ErrorKind | str,
        *,
        provider: str | None = None,
        status: int | None = None,
        detail: str = "",
        retry_after: float | None = None,
    ):
        self.kind = kind
        self.provider = provider
        self.status = status
        self.message = headline(provider, kind, status)
        self.detail = detail
        self.retry_after = retry_after
        super().__init__(self.message)

    def on_own_key(self) -> ProviderError:
        """The same failure, said to be of the user's own API key (headlines.OWN_KEY_PREFIX)."""
        self.message = headline(self.provider, self.kind, self.status, own_key=True)
        self.args = (self.message,)
        return self

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_KINDS

    def __repr__(self) -> str:
        return f"ProviderError({self.message!r}, kind={self.kind!r}, retry_after={self.retry_after!r})"


class Provider(Protocol):
    def stream(
        self, spec: ModelSpec, messages: list[Message], system: str, max_tokens: int, search: Search | None = None
    ) -> Iterator[str | Usage]:
        """Text deltas as they arrive, then exactly one Usage. `search`: the search_cards tool
        (providers/tools.py), offered to a model that takes tools, ignored by one that does not."""
        ...


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110)."""
    if not headers:
        return None
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if not value:
            continue
        try:
            seconds = float(value)
            return seconds / 1000 if name == "retry-after-ms" else seconds
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
            return max(when.timestamp() - time.time(), 0.0)
        except (TypeError, ValueError):
            pass
    return None


def classify(status: int | None, error_type: str | None, text: str) -> ErrorKind:
    """The kind of an HTTP-level failure, from status code, the provider's
    error type/code and (for context length, which shares 400) its wording."""
    t = (error_type or "").lower()
    lowered = text.lower()
    if t in ("overloaded_error", "unavailable") or status in (503, 529):
        return "overloaded"
    if t in ("insufficient_quota", "billing_error"):
        # a spent quota does not come back by waiting: treat it like a bad key
        return "auth"
    if t in ("rate_limit_error", "rate_limit_exceeded", "resource_exhausted") or status == 429:
        return "rate_limited"
    if (
        t in ("authentication_error", "permission_error", "unauthenticated", "permission_denied", "invalid_api_key")
        or status in (401, 403)
        or "api key not valid" in lowered
    ):
        return "auth"
    if status == 413 or any(sign in lowered or sign in t for sign in _CONTEXT_SIGNS):
        return "context_too_long"
    if status is not None and 400 <= status < 500:
        return "bad_request"
    return "provider"


class Failures:
    """Builds one call's ProviderErrors: the headline from the provider id,
    kind and status; the detail scrubbed of that call's key and prompt."""

    def __init__(self, provider: str, api_key: str, system: str, messages: list[Message]):
        self.provider = provider
        self._secrets = [api_key]
        self._system = system
        self._prompt = [m["content"] for m in messages]

    def http(
        self,
        status: int | None,
        error_type: str | None,
        detail: str,
        headers: Mapping[str, str] | None = None,
        retry_after: float | None = None,
    ) -> ProviderError:
        """A failure the provider reported: an HTTP error, or an error event
        inside a stream (whose 200 status says nothing, so it is left out)."""
        status = status if status and status >= 400 else None
        if retry_after is None:
            retry_after = retry_after_seconds(headers)
        return self.of(classify(status, error_type, detail), detail, status=status, retry_after=retry_after)

    def hide(self, texts: tuple[str, ...]) -> None:
        """Scrub `texts` too (tool results: cards, as hidden as the background)."""
        self._system = "\n\n".join((self._system, *texts))

    def of(
        self, kind: ErrorKind, detail: str, *, status: int | None = None, retry_after: float | None = None
    ) -> ProviderError:
        said = scrub_error(detail or "", secrets=self._secrets, background=self._system, prompt=self._prompt, limit=200)
        return ProviderError(kind, provider=self.provider, status=status, detail=said, retry_after=retry_after)


def client_options(api_key: str, http_client: httpx2.Client | None) -> dict[str, Any]:
    """Constructor options for the anthropic and openai SDKs, which are
    generated alike and take the same ones.

    The engine owns retries (it knows the lease and the user is waiting), so
    the SDK must not retry on its own behind our back.
    """
    import httpx2  # what both SDKs' Timeout is

    return {
        "api_key": api_key,
        "http_client": http_client,
        "max_retries": 0,
        "timeout": httpx2.Timeout(read_timeout_s(), connect=CONNECT_TIMEOUT_S),
    }


@dataclass(frozen=True)
class Prompt:
    """What one exchange sends: to which model, the conversation, the system
    text (the background) and how long the answer may be; whether the search_cards
    tool is offered, and the rounds of its calls so far with their results."""

    spec: ModelSpec
    messages: list[Message]
    system: str
    max_tokens: int
    tools: bool = False
    rounds: tuple[ToolRound, ...] = ()


class SDKProvider(ABC):
    """A provider reached through its vendor's SDK.

    Reading the key, building the call's scrubbed Failures, closing the client
    and treating a stream without its end marker as a dropped connection are
    the same for every vendor; a subclass builds the SDK client and translates
    one streamed exchange (its events and its exception types).
    """

    #: The provider's id (models.ModelSpec.provider): names it in headlines.
    provider: str
    #: The key's environment variable when the model's spec names none.
    key_env: str
    #: The user's own API key (access/own_keys.py), set by providers.stream: used instead of the deployment's.
    api_key: str | None = None
    #: A user's own OpenAI-compatible endpoint (access/own_keys.py), set beside `api_key`.
    base_url: str | None = None

    def __init__(self, http_client: httpx2.Client | None = None):
        # A caller's HTTP client (a test transport, a shared pool) is theirs to close.
        self._http_client = http_client

    @abstractmethod
    def make_client(self, api_key: str, http_client: httpx2.Client | None) -> Any:
        """The SDK client, with its own retries off: the engine owns retry."""

    @abstractmethod
    def exchange(
        self,
        client: Any,
        prompt: Prompt,
        fail: Failures,
    ) -> Generator[str | ToolCall, None, Usage | None]:
        """Yields text deltas and, once each is whole, the tool calls the model made (`prompt.tools`:
        the search_cards tool offered, `prompt.rounds` sent back in its wire format); returns the
        Usage once the provider marked the exchange complete, None if the stream ended before
        that. Turns the SDK's failures into `fail`'s ProviderErrors."""

    def stream(
        self, spec: ModelSpec, messages: list[Message], system: str, max_tokens: int, search: Search | None = None
    ) -> Iterator[str | Usage]:
        api_key = (self.api_key or os.environ.get(spec.key_env or self.key_env, "")).strip()
        client = self.make_client(api_key, self._http_client)
        fail = Failures(self.provider, api_key, system, messages)
        try:
            usage = yield from self._rounds(
                client, Prompt(spec, messages, system, max_tokens, search is not None), fail, search
            )
        except Exception as e:
            kind = transport_failure(e)
            if kind is None:
                raise
            raise fail.of(kind, type(e).__name__) from None
        finally:
            if self._http_client is None:
                client.close()
        if usage is None:
            raise fail.of("incomplete", "the stream ended before the answer was complete")
        yield usage

    def _rounds(
        self, client: Any, prompt: Prompt, fail: Failures, search: Search | None
    ) -> Generator[str, None, Usage | None]:
        """The exchange, called again with the results of the tool calls it ended with, for
        at most MAX_ROUNDS rounds; their usage summed. A first exchange refused as a bad request
        while it offers the tool is asked again without it (nothing of it was yielded: its text
        is held until it cites, and a refusal comes before any)."""
        total = Usage()
        for n in range(MAX_ROUNDS + 1):
            calls: list[ToolCall] = []
            try:
                usage, said = yield from self._round(client, prompt, fail, calls)
            except ProviderError as e:
                # a server that takes no tools (some compatible ones) refuses the request: ask it without
                if not (prompt.tools and not prompt.rounds and e.kind == "bad_request"):
                    raise
                prompt, search = replace(prompt, tools=False), None
                usage, said = yield from self._round(client, prompt, fail, calls)
            if usage is None:
                return None
            total = _summed(total, usage)
            if not calls or search is None or n == MAX_ROUNDS:
                return total
            results = tuple(run(search, c) for c in calls)
            fail.hide(results)
            prompt = replace(prompt, rounds=(*prompt.rounds, ToolRound(said, tuple(calls), results)))
        return total

    def _round(
        self, client: Any, prompt: Prompt, fail: Failures, calls: list[ToolCall]
    ) -> Generator[str, None, tuple[Usage | None, str]]:
        """One exchange: its text yielded (while the tool is offered, held back until it cites a
        card or passes HELD_CHARS, and dropped if the round ends in a call), its calls put in
        `calls`; returns its usage and all it said."""
        held: list[str] = []
        said: list[str] = []
        released = not prompt.tools
        exchange = self.exchange(client, prompt, fail)
        while True:
            try:
                item = next(exchange)
            except StopIteration as end:
                usage: Usage | None = end.value
                break
            if isinstance(item, ToolCall):
                calls.append(item)
                continue
            said.append(item)
            if released:
                yield item
                continue
            held.append(item)
            so_far = "".join(held)
            if len(so_far) > HELD_CHARS or CITATION.search(so_far):
                released = True
                yield so_far
        if not released and not calls:
            yield from held
        return usage, "".join(said)


def _summed(a: Usage, b: Usage) -> Usage:
    return Usage(
        a.input_tokens + b.input_tokens,
        a.output_tokens + b.output_tokens,
        cached_input_tokens=a.cached_input_tokens + b.cached_input_tokens,
        cache_write_tokens=a.cache_write_tokens + b.cache_write_tokens,
        estimated=a.estimated or b.estimated,
    )
