"""What of a card gets embedded.

The original team found that embeddings of the full card text attended too
strongly to dates and note-keeping boilerplate: two unrelated cards written
on the same day came out closer than two cards about the same topic. So the
embedded text is the title plus the body's words: Markdown syntax, links'
targets, images, HTML, bare URLs, dates and "Last updated ..." style lines
are removed. Code is kept as words: identifiers carry a card's topic.

`text_hash` is what decides whether a stored embedding is still fresh, so
every change here changes the hash of every card and re-embeds them: change
it on purpose only.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

_S = r"[ \t]"  # a space within a line: no pattern here reaches across lines
_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_WEEKDAYS = (
    r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
    r"|Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:1[89]\d\d|2\d\d\d)"
_CLOCK = r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?"
_TIME = rf"{_CLOCK}(?:\.\d+)?(?:{_S}?[AaPp]\.?[Mm]\.?)?"
_ZONE = rf"(?:Z|[+-]\d\d:?\d\d|{_S}?UTC|{_S}?GMT)?"

# Every form holds a digit, so text without one skips the search. Forms
# starting with a digit and with a capital (month and weekday names are
# matched capitalised only: "you may 5" is no date) are split by lookaheads
# so the engine tries only the relevant group at each word start; within
# each, the longest forms come first so a date is removed whole.
_NUMERIC_DATES = [
    # ISO 8601 dates and timestamps: 2024-03-15, 2024-03-15T10:00:00Z, 2024/03/15
    rf"{_YEAR}[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])(?:[T ]{_TIME}{_ZONE})?\b",
    # Day-first or month-first: 15/03/2024, 3.15.2024, 15/03/24 (a two-digit
    # year only with slashes, so version numbers like 1.12.10 stay)
    rf"(?:0?[1-9]|[12]\d|3[01])(?:[/.-](?:0?[1-9]|[12]\d|3[01])[/.-]{_YEAR}|/(?:0?[1-9]|[12]\d|3[01])/\d\d)\b",
    # 15 March 2024 / 15th of March
    rf"{_DAY}{_S}+(?:of{_S}+)?{_MONTHS}(?:,?{_S}+{_YEAR})?\b",
    # A time of day only when it says so (9:05 pm, 14:00 UTC): a bare 10:20
    # may be a slice or a line number in code.
    rf"{_CLOCK}{_S}?(?:[AaPp]\.?[Mm]\b\.?|UTC\b|GMT\b)",
]
_NATURAL_DATES = [
    # (Monday,) March 15th, 2024 (at 10:30) / March 15
    rf"(?:{_WEEKDAYS},?{_S}+)?{_MONTHS}{_S}+{_DAY}\b(?:,?{_S}+{_YEAR}\b)?(?:,?{_S}+(?:at{_S}+)?{_TIME}\b)?",
    # Monday, 15 March 2024
    rf"{_WEEKDAYS},?{_S}+{_DAY}{_S}+(?:of{_S}+)?{_MONTHS}(?:,?{_S}+{_YEAR})?\b",
    rf"{_MONTHS},?{_S}+{_YEAR}\b",
]
_DATES = re.compile(
    r"\b(?:(?=\d)(?:" + "|".join(_NUMERIC_DATES) + r")"
    r"|(?=[A-Z])(?:" + "|".join(_NATURAL_DATES) + r")"
    rf"|at{_S}+{_TIME}\b)"
)
_DIGIT = re.compile(r"\d")

# Whole lines that are note-keeping, not content.
_BOILERPLATE_LINES = re.compile(
    rf"^{_S}*(?:[-*+>]{_S}*)*[*_]{{0,2}}(?:"
    rf"last{_S}+(?:updated|edited|modified|reviewed|changed|revised|touched)"
    rf"|(?:updated|edited|modified|created|reviewed|revised|date|written){_S}*(?::|(?:on|at)\b)"
    r").*$",
    re.IGNORECASE | re.MULTILINE,
)
# Working-note markers (upper case, as they are written). The words after
# them are kept: they are often the topic.
_MARKERS = re.compile(r"\b(?:TODO|FIXME|TBD|WIP)\b:?")

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
# Code is kept verbatim (less its fence lines): Markdown rules would mangle
# it (`store[key][1:20]` is not a reference link, `__init__` not emphasis).
_CODE = re.compile(
    r"^[ ]{0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<block>.*?)(?:^[ ]{0,3}(?P=fence)[`~]*[ \t]*$|\Z)"
    r"|(?P<ticks>`+)(?P<inline>.+?)(?P=ticks)",
    re.MULTILINE | re.DOTALL,
)
_HTML_DROP_BLOCK = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_AUTOLINK = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>", re.IGNORECASE)
_HTML_ENTITY = re.compile(r"&(?:[A-Za-z]{2,8}|#\d{1,6}|#x[0-9A-Fa-f]{1,6});")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_REF_DEF = re.compile(r"^[ ]{0,3}\[[^\]]+\]:[ \t]+\S+.*$", re.MULTILINE)
_URL = re.compile(r"\b(?:https?://|ftp://|www\.)[^\s<>()\[\]]+", re.IGNORECASE)
_HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]+|[ \t]+#+[ \t]*$", re.MULTILINE)
_SETEXT = re.compile(r"^[ ]{0,3}(?:=+|-+)[ \t]*$", re.MULTILINE)
_RULE = re.compile(r"^[ ]{0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$", re.MULTILINE)
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)
_LIST = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?", re.MULTILINE)
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$", re.MULTILINE)
# Emphasis: * and ~ runs anywhere; _ only at a word's edge, so snake_case survives.
_EMPHASIS = re.compile(r"\*+|~~+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
# Runs of blanks, and any blank that is not a plain space (a single space is left alone: fast).
_SPACES = re.compile(r"[ \t\f\v\r\u00a0]{2,}|[\t\f\v\r\u00a0]")
# Punctuation left dangling once a date inside it is gone: "(, )", "on ."
_EMPTY_BRACKETS = re.compile(r"\([ \t]*[,;:-]?[ \t]*\)|\[[ \t]*\]")
_ORPHAN_PUNCT = re.compile(r" ([,;:.)])")
_WORD_CHAR = re.compile(r"[^\W_]")


def _strip_markdown(text: str) -> str:
    text = _FRONT_MATTER.sub("", text)
    if "`" not in text and "~~~" not in text:
        return _strip_prose(text)
    parts: list[str] = []
    pos = 0
    for m in _CODE.finditer(text):
        parts.append(_strip_prose(text[pos : m.start()]))
        parts.append(m.group("block") if m.group("fence") else m.group("inline"))
        pos = m.end()
    parts.append(_strip_prose(text[pos:]))
    return "".join(parts)


def _strip_prose(text: str) -> str:
    # Each rule runs only when its marker character is present: the cleaning
    # of 10,000 cards is on the path of every new chat.
    if "<" in text:
        text = _HTML_DROP_BLOCK.sub(" ", text)
        text = _HTML_COMMENT.sub(" ", text)
        text = _AUTOLINK.sub(" ", text)
        text = _HTML_TAG.sub(" ", text)
    if "[" in text:
        text = _IMAGE.sub(" ", text)
        text = _LINK.sub(r"\1", text)
        text = _REF_LINK.sub(r"\1", text)
        text = _REF_DEF.sub("", text)
    if "&" in text:
        text = _HTML_ENTITY.sub(" ", text)
    if "://" in text or "www." in text:
        text = _URL.sub(" ", text)
    if "|" in text:
        text = _TABLE_RULE.sub("", text)
        text = text.replace("|", " ")
    text = _RULE.sub("", text)
    text = _SETEXT.sub("", text)
    if "#" in text:
        text = _HEADING.sub("", text)
    if ">" in text:
        text = _QUOTE.sub("", text)
    text = _LIST.sub("", text)
    if "*" in text or "_" in text or "~" in text:
        text = _EMPHASIS.sub("", text)
    return text


def _clean(text: str) -> list[str]:
    """Non-empty lines of `text` with boilerplate lines, dates and markers gone."""
    text = _BOILERPLATE_LINES.sub("", text)
    if _DIGIT.search(text):
        text = _DATES.sub(" ", text)
    if "TODO" in text or "FIXME" in text or "TBD" in text or "WIP" in text:
        text = _MARKERS.sub(" ", text)
    if "(" in text or "[" in text:
        text = _EMPTY_BRACKETS.sub(" ", text)
    if "  " in text or "\t" in text or "\r" in text or "\xa0" in text or "\f" in text or "\v" in text:
        text = _SPACES.sub(" ", text)
    text = _ORPHAN_PUNCT.sub(r"\1", text)
    # A line left with punctuation only ("-", ",", ":") said nothing but a date.
    return [line for line in (raw.strip() for raw in text.split("\n")) if _WORD_CHAR.search(line)]


def embeddable_text(title: str, body: str) -> str:
    """The title and the body's words, one cleaned line per non-empty line."""
    title = unicodedata.normalize("NFC", title or "")
    body = unicodedata.normalize("NFC", body or "")
    title_lines = _clean(_strip_markdown(title))
    body_lines = _clean(_strip_markdown(body))
    return "\n".join([" ".join(title_lines), *body_lines]).strip()


def text_hash(title: str, body: str) -> str:
    """sha256 (hex) of embeddable_text: equal hashes mean an equal vector."""
    return embeddable_and_hash(title, body)[1]


@functools.lru_cache(maxsize=20_000)
def embeddable_and_hash(title: str, body: str) -> tuple[str, str]:
    """(embeddable_text, text_hash) with the text cleaned once. Cached: every
    new chat hashes all its cards to find their fresh vectors,
    and the same collections come back."""
    text = embeddable_text(title, body)
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()
