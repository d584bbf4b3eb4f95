"""Make a provider's error text safe to write to the server log.

No client reads these texts any more (a client reads only a fixed headline,
providers/headlines.py), but the log must not carry an API key or the hidden background
either: a provider once echoed the whole prompt in its error. Scrubbing is by
content, not by trusting the provider's format: known keys and key-shaped
tokens, runs of the background or of the conversation (matched after undoing
JSON and URL escapes, ignoring case and whitespace), JSON bodies and stack
traces all go. It is defence in depth for the log, so it errs towards
removing too much.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import unquote_plus

from cardchat.parsing.utf8 import well_formed

#: A run of the prompt at least this long (characters) is removed wherever it appears.
MIN_ECHO = 20
#: A whole prompt text shorter than MIN_ECHO (a short question) is removed
#: wherever it appears, if it has at least this many characters.
MIN_SHORT = 4
#: Longest scrubbed text, characters: a short readable reason, not a dump.
MAX_LENGTH = 300
#: Texts longer than this are cut before matching; nothing past it can reach
#: the (much shorter) result.
_MAX_SCAN = 10_000
#: Occurrences of one window in a prompt followed when extending a match.
_MAX_OCCURRENCES = 16

_REDACTED = "[redacted]"
_OMITTED = "[…]"

_KEY_SHAPES = re.compile(
    r"""
    \bsk-[A-Za-z0-9_\-*.]{6,}            # OpenAI / Anthropic (sk-ant-…, sk-proj-…)
    | \bAIza[0-9A-Za-z_\-]{10,}          # Google API keys
    | \bBearer\s+[A-Za-z0-9_\-.=:/+]{8,}  # an Authorization header value
    | (?:api[_-]?key|x-api-key|x-goog-api-key|authorization)["']?\s*[:=]\s*["']?(?:Bearer\s+)?[^\s"',}&]{4,}
    | \bkey=[^\s"'&]{8,}                 # ?key=… in a URL
    """,
    re.IGNORECASE | re.VERBOSE,
)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[nrt\"\\/])")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):.*", re.DOTALL)
_FILE_LINE = re.compile(r'^\s*File "[^"]*", line \d+.*$', re.MULTILINE)


def scrub_error(
    text: str,
    *,
    secrets: Iterable[str | None] = (),
    background: str = "",
    prompt: Sequence[str] = (),
    limit: int = MAX_LENGTH,
) -> str:
    """A short, readable version of `text` holding no key and no prompt text.

    `background` is the hidden system text; `prompt` the conversation's other
    texts (earlier answers quote the background too).
    """
    text = well_formed(str(text))
    cut = len(text) > _MAX_SCAN
    out = text[:_MAX_SCAN]
    out = _TRACEBACK.sub("", out)
    out = _FILE_LINE.sub("", out)
    found = [s.strip() for s in secrets if s and len(s.strip()) >= 4]
    out = _redact(out, found)
    # An echo inside a JSON string or a URL is escaped there; undo that so it
    # matches the prompt it came from (and a key split by escapes shows).
    out = _redact(_decode(out), found)
    # Providers re-flow what they quote (a list's newlines become spaces), and
    # a card of short lines has no long run left to match: compare with all
    # whitespace folded to single spaces, on both sides.
    out = " ".join(out.split())
    for source in (background, *prompt):
        source = " ".join(source.split()) if source else ""
        if source:
            out = remove_echo(out, source)
            if cut:
                out = _drop_echoed_tail(out, source)
    out = _drop_json_bodies(out)
    # keys may have been split by JSON; look again on the final form
    out = _KEY_SHAPES.sub(_REDACTED, out)
    out = " ".join(out.split())
    if len(out) > limit:
        out = out[: max(limit - 1, 0)].rstrip() + "…"
    return out


def _redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = re.sub(re.escape(secret), _REDACTED, text, flags=re.IGNORECASE)
    return _KEY_SHAPES.sub(_REDACTED, text)


def _decode(text: str) -> str:
    """`text` with JSON string escapes (\\n, \\uXXXX, surrogate pairs joined)
    and URL percent-escapes undone, twice over for one nested in the other."""
    for _ in range(2):
        before = text
        text = well_formed(_ESCAPE.sub(_unescape, text))
        if _PERCENT.search(text):
            text = well_formed(unquote_plus(text, errors="replace"))
        if text == before:
            break
    return text


def _fold(text: str) -> str:
    """Lower case of the same length, so positions in it are positions in `text`."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def remove_echo(text: str, source: str, min_run: int = MIN_ECHO) -> str:
    """`text` with every run of >= `min_run` characters that also occurs in
    `source`, ignoring case, replaced by a marker; a `source` shorter than
    that (a short question) is replaced wherever it occurs whole. Linear in
    len(text) searches of `source`."""
    if len(source) < min_run:
        if len(source) < MIN_SHORT:
            return text
        return re.sub(re.escape(source), _OMITTED, text, flags=re.IGNORECASE)
    if len(text) < min_run:
        return text
    original, text, source = text, _fold(text), _fold(source)
    window = max(min_run // 2, 1)
    spans: list[tuple[int, int]] = []
    start = 0
    while start + window <= len(text):
        if spans and start < spans[-1][1]:
            start += window
            continue
        piece = text[start : start + window]
        found = source.find(piece)
        best: tuple[int, int] | None = None
        seen = 0
        while found != -1 and seen < _MAX_OCCURRENCES:
            a, b = _extend(text, start, start + window, source, found)
            if b - a >= min_run and (best is None or b - a > best[1] - best[0]):
                best = (a, b)
            seen += 1
            found = source.find(piece, found + 1)
        if best:
            spans.append(best)
        start += window
    if not spans:
        return original
    parts: list[str] = []
    pos = 0
    for a, b in _merge(spans):
        parts.append(original[pos:a])
        parts.append(_OMITTED)
        pos = b
    parts.append(original[pos:])
    return "".join(parts)


def _drop_echoed_tail(text: str, source: str, shortest: int = 8) -> str:
    """Where the text was cut, an echo can straddle the cut with fewer than
    MIN_ECHO characters left before it: drop such a tail too."""
    folded, source = _fold(text), _fold(source)
    for n in range(min(MIN_ECHO, len(text)), shortest - 1, -1):
        if folded[-n:] in source:
            return text[:-n] + _OMITTED
    return text


def _extend(text: str, a: int, b: int, source: str, at: int) -> tuple[int, int]:
    """Grow the match text[a:b] == source[at:at+b-a] both ways as far as it goes."""
    left = 0
    while a - left > 0 and at - left > 0 and text[a - left - 1] == source[at - left - 1]:
        left += 1
    right = 0
    end = at + (b - a)
    while b + right < len(text) and end + right < len(source) and text[b + right] == source[end + right]:
        right += 1
    return a - left, b + right


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def _unescape(m: re.Match[str]) -> str:
    code = m.group(1)
    if code.startswith("u"):
        return chr(int(code[1:], 16))
    return {"n": "\n", "r": "\r", "t": "\t"}.get(code, code)


def _drop_json_bodies(text: str) -> str:
    """Replace every outermost {...} or [...] block that looks like a JSON body
    (or a Python repr of one) with a marker: bodies echo requests."""
    out: list[str] = []
    depth = 0
    start = 0
    pos = 0
    opener = ""
    for i, ch in enumerate(text):
        if depth == 0 and ch in "{[":
            opener, depth, start = ch, 1, i
        elif depth > 0 and ch == opener:
            depth += 1
        elif depth > 0 and ch == ("}" if opener == "{" else "]"):
            depth -= 1
            if depth == 0:
                block = text[start : i + 1]
                if ":" in block or '"' in block or "'" in block:
                    out.append(text[pos:start])
                    out.append(_OMITTED)
                    pos = i + 1
    if depth > 0 and (":" in text[start:] or '"' in text[start:]):
        out.append(text[pos:start])
        out.append(_OMITTED)
        return "".join(out)
    out.append(text[pos:])
    return "".join(out)
