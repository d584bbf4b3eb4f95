"""The engine and a failing model provider, on the real emulator: a failure
mid-answer keeps the partial text; before the first token a busy provider is
asked again (its Retry-After or a backoff) while the lease is renewed and the
reader is told why; an answer still streaming at the deadline is cut off and
kept."""

from __future__ import annotations

import json

import pytest

from cardchat.chat.turns import post_message, retry_message
from cardchat.errors import FailedPrecondition
from cardchat.generation.engine import CUT_OFF_TIME, PROVIDER_BACKOFF_S, generate
from cardchat.providers import declining
from engine_support import (
    CLAUDE,
    FAKE_KEY,
    OFFLINE_ANSWER,
    SECRET_BACKGROUND,
    ChunkWatcher,
    Renewals,
    answer_usage,
    anthropic_wire,
    chunks_left,
    make_chat,
    message,
    paced,
    quick,
)
from provider_wire import fixture_response, sse

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "paced", "quick"]  # fixtures, used by name


def test_provider_error_mid_stream_keeps_the_partial_text_then_retry_completes(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    anthropic_wire.responses = [sse("anthropic_overloaded_midstream.sse")]
    watcher = ChunkWatcher(db, stub)
    assert generate(db, stub) == "failed"
    watcher.wait_until(lambda w: w.present == 0)  # a failure may leave no chunk at all (below)
    watcher.close()

    failed = message(db, stub)
    assert failed["status"] == "failed"
    assert failed["content"] == "Partial answer"
    assert failed["error"] == "Anthropic is overloaded"  # an error event in a 200 stream: no status
    assert FAKE_KEY not in failed["error"] and "whiteboard" not in failed["error"]
    assert failed["lease_expires"] is None
    # The reader never saw text that was not kept. How much of it came as
    # chunks is timing: the failure stops the chunk writer without a last
    # flush, so deltas not yet written reach the reader with the final write.
    assert "Partial answer".startswith(watcher.text())
    assert len(anthropic_wire.requests) == 1  # text had streamed: not asked again
    assert chunks_left(db) == 0
    # the background went as the system text, the conversation as messages
    sent = json.loads(anthropic_wire.requests[0].content)
    assert sent["system"][0]["text"] == f"{declining.INSTRUCTION}\n\n{SECRET_BACKGROUND}"  # how to decline, first
    assert sent["messages"] == [{"role": "user", "content": "What do my cards say?"}]

    with pytest.raises(FailedPrecondition):
        post_message(db, "u1", "chat1", "another question")
    assert retry_message(db, "u1", stub) == stub
    reset = message(db, stub)
    assert (reset["status"], reset["content"], reset["error"]) == ("ready", "", None)

    anthropic_wire.responses = [sse("anthropic_stream.sse")]
    assert generate(db, stub) == "complete"
    done = message(db, stub)
    assert done["content"] == "Tides follow the moon [1]."
    assert done["attempts"] == 2 and done["error"] is None
    assert (answer_usage(db, stub)["usage"]["input_tokens"], done["usage"]["output_tokens"]) == (1225, 9)
    assert chunks_left(db) == 0


def test_an_overloaded_provider_is_asked_again_before_the_first_token(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE, background=SECRET_BACKGROUND, background_tokens=40)
    anthropic_wire.responses = [
        fixture_response(529, "anthropic_overloaded_529.json"),
        fixture_response(429, "anthropic_rate_limit_429.json", **{"retry-after": "7"}),
        sse("anthropic_stream.sse"),
    ]
    sleep = Renewals(db, stub)
    assert generate(db, stub, sleep=sleep, lease=3.0) == "complete"

    done = message(db, stub)
    assert done["content"] == "Tides follow the moon [1]." and done["error"] is None
    assert done["timings"]["provider_retries"] == 2 and done["cut_off"] is None
    assert len(anthropic_wire.requests) == 3
    # the backoff first, then the provider's own Retry-After, in steps of a third of the lease
    assert sum(sleep.pauses[:2]) == pytest.approx(PROVIDER_BACKOFF_S[0])
    assert sum(sleep.pauses[2:]) == pytest.approx(7.0) and len(sleep.pauses) == 2 + 7
    # the lease was renewed after every pause: the answer never looked stalled
    assert len(set(sleep.leases)) == len(sleep.leases)
    # the reader is told why nothing arrives yet, and until when: a fixed headline
    first, second = sleep.waits[0], sleep.waits[2]
    assert first["reason"] == "Anthropic is overloaded (HTTP 529)" and first["call"] == 2
    assert second["reason"] == "Anthropic rate limit reached (HTTP 429)" and second["call"] == 3
    assert second["until"] > first["until"]
    assert not any(FAKE_KEY in w["reason"] or "whiteboard" in w["reason"] for w in sleep.waits)
    assert done["provider_wait"] is None


def test_a_provider_that_stays_overloaded_fails_after_four_calls(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE)
    anthropic_wire.responses = [fixture_response(529, "anthropic_overloaded_529.json") for _ in range(5)]
    sleep = Renewals(db, stub)
    assert generate(db, stub, sleep=sleep) == "failed"
    failed = message(db, stub)
    assert (
        failed["error"] == "Anthropic is overloaded (HTTP 529)"
        and failed["content"] == ""
        and failed["provider_wait"] is None
    )
    assert len(anthropic_wire.requests) == 4
    assert sum(sleep.pauses) == pytest.approx(sum(PROVIDER_BACKOFF_S))


def test_a_long_retry_after_or_a_refused_key_fails_at_once(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE)
    anthropic_wire.responses = [fixture_response(429, "anthropic_rate_limit_429.json", **{"retry-after": "3600"})]
    sleep = Renewals(db, stub)
    assert generate(db, stub, sleep=sleep) == "failed"
    assert message(db, stub)["error"] == "Anthropic rate limit reached (HTTP 429)" and sleep.pauses == []

    retry_message(db, "u1", stub)
    anthropic_wire.responses = [fixture_response(401, "anthropic_invalid_key_401.json")]
    assert generate(db, stub, sleep=sleep) == "failed"
    assert message(db, stub)["error"] == "Anthropic rejected the API key (HTTP 401)" and sleep.pauses == []
    assert len(anthropic_wire.requests) == 2


def test_an_answer_still_streaming_at_the_deadline_is_cut_off_and_kept(db, paced):
    stub = make_chat(db)
    assert generate(db, stub, deadline=0.3) == "complete"
    msg = message(db, stub)
    assert msg["cut_off"] == CUT_OFF_TIME and msg["error"] is None
    assert msg["content"] and OFFLINE_ANSWER.startswith(msg["content"]) and msg["content"] != OFFLINE_ANSWER
    # no usage came from the provider: an estimate, so the rate limit still counts it
    assert msg["usage"]["output_tokens"] > 0 and answer_usage(db, stub)["usage"]["input_tokens"] > 0
    assert chunks_left(db) == 0

    whole = make_chat(db, "chat2")
    assert generate(db, whole) == "complete"
    assert message(db, whole)["cut_off"] is None
