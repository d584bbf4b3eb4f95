"""scrub_error: provider error texts lose keys, prompt echoes, bodies and traces."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

from cardchat.providers.scrub import MAX_LENGTH, remove_echo, scrub_error

KEY = "sk-ant-api03-Zx9TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
BACKGROUND = "\n\n".join(
    f"[{i}] Card {i}\nThe quarterly figure for region {i} was {i * 37} units, reported by the north office "
    f"after the audit of shipment batch {i * 11}; confidential until the board meets."
    for i in range(1, 40)
)


def test_error_echoing_background_and_key_keeps_neither():
    text = f"Error 400: invalid request for key {KEY}. Request body was: " + json.dumps(
        {"system": BACKGROUND, "messages": [{"role": "user", "content": "hi"}]}
    )
    out = scrub_error(text, secrets=[KEY], background=BACKGROUND)
    assert KEY not in out and "TESTKEY" not in out
    assert "quarterly figure" not in out and "confidential" not in out
    assert out.startswith("Error 400: invalid request for key [redacted]")
    assert len(out) <= MAX_LENGTH


def test_plain_echo_without_json_is_removed_but_reason_kept():
    passage = BACKGROUND[500:1500]
    out = scrub_error(f"prompt rejected by policy: {passage} (code 7)", background=BACKGROUND)
    assert "prompt rejected by policy" in out
    assert "(code 7)" in out
    # no 40-character run of the background survives anywhere
    assert all(out[i : i + 40] not in BACKGROUND for i in range(max(len(out) - 39, 0)))


def test_json_escaped_echo_is_matched_after_unescaping():
    escaped = json.dumps(BACKGROUND[:400])[1:-1]  # newlines as \n, as inside a JSON string
    out = scrub_error(f"bad content: {escaped}", background=BACKGROUND)
    assert "quarterly" not in out


def test_key_shapes_are_removed_without_being_told_the_key():
    text = (
        "keys sk-proj-abcDEF1234567890xyz and AIzaSyA1b2C3d4E5f6G7h8I9j0KLMNOP "
        "header Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload url https://x.test/v1?key=AIzaSecret123456"
    )
    out = scrub_error(text)
    for piece in ("sk-proj", "abcDEF", "AIzaSy", "eyJhbGci", "AIzaSecret"):
        assert piece not in out


def test_stack_trace_and_long_text_are_cut():
    text = (
        'Failed.\nTraceback (most recent call last):\n  File "/srv/x.py", line 3, in f\nValueError: boom ' + "x" * 5000
    )
    out = scrub_error(text)
    assert out == "Failed."
    long = scrub_error("word " * 400)
    assert len(long) <= MAX_LENGTH and long.endswith("…")


def test_echo_straddling_the_scan_limit_leaves_no_tail():
    filler = "z" * 9_990  # not prompt text; pushes the echo across the 10 000-char scan cut
    out = scrub_error("x " + filler + BACKGROUND[:200], background=BACKGROUND, limit=20_000)
    assert "The q" not in out and "Card" not in out


def test_short_common_words_are_not_mistaken_for_echoes():
    out = scrub_error("The request was rejected: the board meets.", background=BACKGROUND)
    assert out == "The request was rejected: the board meets."


def test_remove_echo_on_a_large_background():
    # How fast it is on this size is a figure of `scripts/bench scrub`, not an assertion.
    big = BACKGROUND * 300  # ~4 MB, a 1M-token window's worth
    text = "upstream said: " + BACKGROUND[2000:6000] + " and something else entirely " * 20
    out = remove_echo(text, big)
    assert "quarterly" not in out and "something else entirely" in out


def test_an_echo_with_its_line_breaks_reflowed_is_still_removed():
    card = (
        "- host: db-prod-eu.internal:5432\n"
        "- user: payroll_admin\n"
        "- vault path: secret/payroll/prod\n"
        "- on-call: Jane Doe +49 151 000000\n"
    )
    background = '<card n="1">\nPayroll database\n' + card + "</card>\n"
    reflowed = " ".join(card.split())
    error = f'Invalid request near "{reflowed}": unexpected token'
    out = scrub_error(error, background=background)
    for secret in ("db-prod-eu", "payroll_admin", "secret/payroll", "Jane Doe"):
        assert secret not in out
    assert "Invalid request near" in out


def _no_run_of(out: str, source: str, n: int) -> bool:
    folded = " ".join(source.split()).lower()
    return all(out.lower()[i : i + n] not in folded for i in range(max(len(out) - n + 1, 0)))


def test_upper_cased_url_encoded_and_json_escaped_echoes_are_removed():
    passage = BACKGROUND[500:900]
    for echoed in (
        passage.upper(),
        quote(passage),
        quote_plus(passage.upper()),
        json.dumps(passage),
        quote(json.dumps(passage)),
    ):
        out = scrub_error(f"prompt rejected: {echoed} (code 7)", background=BACKGROUND)
        assert "prompt rejected" in out and "(code 7)" in out, echoed[:40]
        assert _no_run_of(out, BACKGROUND, 20), out


def test_an_emoji_echo_escaped_as_surrogate_pairs_is_removed_and_the_result_is_utf8():
    card = "[1] Shed\nThe shed code is 🔑 9921 🌊 and the spare key hangs behind the reef gate."
    escaped = json.dumps(card)  # ensure_ascii: each emoji becomes a \\ud83d\\udd11 pair
    assert "\\ud83d" in escaped
    out = scrub_error(f"bad body {escaped} and a stray \\ud83d here", background=card)
    assert "9921" not in out and "reef gate" not in out and "🔑" not in out
    out.encode("utf-8")  # the stray half pair became U+FFFD, not a lone surrogate
    assert "\ufffd" in out


def test_short_echoes_are_removed_a_short_question_wherever_it_occurs():
    out = scrub_error("flagged: IS LUKAS'S PIN 4711? (and is lukas's pin 4711?)", prompt=["Is Lukas's PIN 4711?"])
    assert "4711" not in out and "flagged" in out
    # a run of the background shorter than the old 40 characters
    run = "reported by the north office"
    assert len(run) < 40 and run in BACKGROUND
    out = scrub_error(f"near '{run.upper()}'", background=BACKGROUND)
    assert "NORTH OFFICE" not in out and "near" in out


def test_a_key_echoed_in_another_case_or_url_encoded_is_redacted():
    out = scrub_error(f"bad key {KEY.upper()} in /v1?x-key={quote(KEY)}", secrets=[KEY])
    assert "TESTKEY" not in out.upper() and "ZX9" not in out.upper()
