"""A provider that drops the connection or hangs, met on a real socket
(provider_server.py) by the engine on the real emulator: the answer ends
`failed` under a fixed headline with the text streamed so far kept; a hang
ends at the read timeout, and calls before the first token are repeated
only while one more could still end by the deadline; a retry gives one
clean answer, never the old text again."""

from __future__ import annotations

import pytest

from cardchat.chat.turns import retry_message
from cardchat.generation.engine import generate
from cardchat.providers.headlines import headline
from engine_support import CLAUDE, FAKE_KEY, ChunkWatcher, chunks_left, make_chat, message, quick
from provider_server import ProviderServer, Reply
from provider_wire import anthropic_text

pytestmark = pytest.mark.emulator
__all__ = ["quick"]  # fixtures, used by name

DELTAS = ["Tides ", "follow ", "the ", "moon ", "[1], ", "twice ", "a ", "day."]
WHOLE = "".join(DELTAS)
#: message_start and content_block_start come before the first delta.
HEAD_EVENTS = 2
TIMEOUT_S = 1.0


@pytest.fixture
def provider(monkeypatch):
    server = ProviderServer()
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("CARDCHAT_PROVIDER_TIMEOUT_S", str(TIMEOUT_S))
    yield server
    server.close()


def stream(then: str = "end", tokens: int | None = None) -> Reply:
    """The answer DELTAS, cut after `tokens` of them (all when None) by `then`."""
    return Reply(anthropic_text(*DELTAS).content, then, None if tokens is None else HEAD_EVENTS + tokens)  # type: ignore[arg-type]


def no_sleep(_seconds: float) -> None:
    """The engine's backoff between calls, skipped: what is tested is which calls are made."""


@pytest.mark.parametrize("k", [1, 4])
def test_a_connection_dropped_after_k_tokens_keeps_them_and_a_retry_answers_once(db, provider, k):
    stub = make_chat(db, model=CLAUDE)
    provider.replies = [stream("drop", k)]
    assert generate(db, stub) == "failed"
    failed = message(db, stub)
    assert failed["content"] == "".join(DELTAS[:k])
    assert failed["error"] == headline("anthropic", "network") == "Network error reaching Anthropic"
    assert len(provider.requests) == 1 and chunks_left(db) == 0  # text had come: not asked again

    retry_message(db, "u1", stub)
    provider.replies = [stream()]
    watcher = ChunkWatcher(db, stub)
    assert generate(db, stub) == "complete"
    watcher.wait_until_streamed()
    watcher.close()
    assert message(db, stub)["content"] == WHOLE == watcher.text()  # the dropped words not shown twice
    assert chunks_left(db) == 0


def test_a_connection_dropped_before_the_first_token_is_called_again(db, provider):
    stub = make_chat(db, model=CLAUDE)
    provider.replies = [stream("drop", 0), stream()]
    assert generate(db, stub, sleep=no_sleep) == "complete"
    done = message(db, stub)
    assert (done["content"], done["attempts"], done["error"]) == (WHOLE, 1, None)
    assert len(provider.requests) == 2


def test_a_provider_that_hangs_mid_answer_fails_at_the_read_timeout_with_its_text_kept(db, provider):
    stub = make_chat(db, model=CLAUDE)
    provider.replies = [stream("hang", 3)]
    assert generate(db, stub) == "failed"
    failed = message(db, stub)
    assert (failed["content"], failed["error"]) == ("".join(DELTAS[:3]), "Anthropic timed out")
    assert failed["lease_expires"] is None and chunks_left(db) == 0


def test_a_provider_that_hangs_before_answering_is_called_while_a_call_fits_the_deadline(db, provider):
    stub = make_chat(db, model=CLAUDE)
    provider.replies = [stream("hang", 0) for _ in range(4)]
    assert generate(db, stub, sleep=no_sleep) == "failed"
    assert len(provider.requests) == 4  # every call the engine allows, each ended by the timeout
    assert (message(db, stub)["error"], message(db, stub)["content"]) == ("Anthropic timed out", "")

    # A deadline that leaves no room for another silent call after the backoff ends it at once.
    retry_message(db, "u1", stub)
    provider.requests.clear()
    provider.replies = [stream("hang", 0) for _ in range(4)]
    assert generate(db, stub, sleep=no_sleep, deadline=TIMEOUT_S * 2.5) == "failed"
    assert len(provider.requests) == 1
