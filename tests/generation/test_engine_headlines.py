"""What a client can read about a failed or delayed answer, on the real
emulator: a fixed headline (providers/headlines.py) and never the provider's words,
however they echo the prompt; and every stored string is well-formed, so a
lone surrogate in an error or in the streamed text still ends the answer.

The Anthropic SDK is answered in its real wire format (JSON error bodies,
server-sent events), built by hand here because each case is one body."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

import httpx2
import pytest

from cardchat.generation.engine import generate
from cardchat.providers.headlines import all_headlines
from engine_support import CLAUDE, FAKE_KEY, SECRET_BACKGROUND, Renewals, anthropic_wire, make_chat, message, quick
from provider_wire import anthropic_text, event_stream, sse

pytestmark = pytest.mark.emulator
__all__ = ["anthropic_wire", "quick"]  # fixtures, used by name

#: A card whose text carries emoji (JSON escapes them as surrogate pairs).
EMOJI_CARD = "\n\n[2] Shed\nThe shed code is 🔑 9921 🌊 and the spare key hangs behind the reef gate."
BACKGROUND = SECRET_BACKGROUND + EMOJI_CARD
#: An earlier question, shorter than any run the old scrubber looked for.
SHORT_QUESTION = "Is Lukas's PIN 4711?"
HISTORY = [("user", SHORT_QUESTION), ("assistant", "Yes [1].")]
#: What none of the stored message may contain, in any case.
SECRETS = ("whiteboard", "room 4", "9921", "reef gate", "lukas", "4711", "🔑", "launch code")


def anthropic_error(status: int, error_type: str, said: str) -> httpx2.Response:
    """An Anthropic error body as the API sends it (ASCII JSON)."""
    body = {"type": "error", "error": {"type": error_type, "message": said}, "request_id": "req_011CSHoEeqs5C35K"}
    return httpx2.Response(
        status, headers={"content-type": "application/json"}, content=json.dumps(body, ensure_ascii=True).encode()
    )


ECHOES = {
    "upper-cased": f"PROMPT REJECTED: {BACKGROUND.upper()}",
    "url-encoded": f"bad request to /v1/messages?system={quote_plus(BACKGROUND)}&q={quote(SHORT_QUESTION)}",
    "json-escaped": f"invalid body {json.dumps({'system': EMOJI_CARD, 'messages': [SHORT_QUESTION]})}",
    "short": f"flagged: {SHORT_QUESTION.upper()} / {SHORT_QUESTION.lower()}",
    "lone surrogate": f"unreadable character \ud83d in {BACKGROUND[-30:]}",
}


def _texts(value: object, key: str = "") -> list[str]:
    """Every string stored in a document, where a provider's words could land.
    Numbers, dates and the random run_id are left out: their digits may spell
    a secret like "9921" by chance (a uuid or a timing did, once in a while)."""
    if isinstance(value, str):
        return [] if key == "run_id" else [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in [str(k), *_texts(v, str(k))]]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v, key)]
    return []


@pytest.mark.parametrize("echo", list(ECHOES))
def test_an_error_echoing_the_prompt_stores_only_the_headline(db, anthropic_wire, caplog, echo):
    stub = make_chat(db, model=CLAUDE, history=HISTORY, background=BACKGROUND, background_tokens=60)
    anthropic_wire.responses = [anthropic_error(400, "invalid_request_error", ECHOES[echo])]
    with caplog.at_level("INFO", logger="cardchat.generation.engine"):
        assert generate(db, stub) == "failed"
    failed = message(db, stub)
    assert (failed["status"], failed["lease_expires"]) == ("failed", None)  # not left "streaming"
    assert failed["error"] == "Anthropic rejected the request (HTTP 400)"
    assert failed["error"] in all_headlines()
    stored = "\n".join(_texts(failed)).lower()
    assert not [s for s in SECRETS if s.lower() in stored]
    # the provider's words reach the log only, scrubbed of the echo there too
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "The provider said:" in logged and FAKE_KEY not in logged
    assert not [s for s in SECRETS if s.lower() in logged.lower()]


def test_the_reason_of_a_provider_wait_is_only_the_headline(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE, history=HISTORY, background=BACKGROUND, background_tokens=60)
    anthropic_wire.responses = [
        anthropic_error(529, "overloaded_error", f"Overloaded while reading {SHORT_QUESTION.upper()}"),
        sse("anthropic_stream.sse"),
    ]
    sleep = Renewals(db, stub)
    assert generate(db, stub, sleep=sleep, lease=3.0) == "complete"
    assert sleep.waits[0]["reason"] == "Anthropic is overloaded (HTTP 529)"
    assert message(db, stub)["provider_wait"] is None


def test_lone_surrogates_in_the_streamed_text_still_complete_the_answer(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE)
    # a pair split across two deltas, then a high surrogate with no pair
    anthropic_wire.responses = [anthropic_text("Tides \ud83c", "\udf0a follow", "\ud83d", " the moon [1].")]
    assert generate(db, stub) == "complete"
    done = message(db, stub)
    assert done["status"] == "complete" and done["lease_expires"] is None
    assert done["content"] == "Tides 🌊 follow\ufffd the moon [1]."


def test_a_lone_surrogate_in_a_failed_answers_partial_text_still_fails_it(db, anthropic_wire):
    stub = make_chat(db, model=CLAUDE)
    midstream = anthropic_text("Partial \udc00 answer").content.split(b"event: content_block_stop")[0]
    error = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    anthropic_wire.responses = [event_stream(midstream + error)]
    assert generate(db, stub) == "failed"
    failed = message(db, stub)
    assert (failed["status"], failed["lease_expires"]) == ("failed", None)
    assert failed["content"] == "Partial \ufffd answer"
    assert failed["error"] == "Anthropic is overloaded"
