"""Whether two near cards say the same thing, or may say different things on the same subject.

Offline and word by word, on the embeddable text (Markdown stripped, embeddings/text.py):
- the same text, or nearly: a high vector similarity and most words shared: `duplicate`;
- two sentences on one subject (most of their content words shared) whose numbers differ (a
  count, a date, a version: "3.11 vs 3.12") or of which one is negated and the other not
  ("says not …"): `may_conflict`.
The vector similarity only chooses the pairs (retrieval/neighbours.py); this module decides.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from cardchat.retrieval.bm25 import STOPWORDS

#: Characters of each card compared: a long card's opening, so a pair costs a bounded time.
TEXT_CHARS = 4000
#: Sentences of each card compared with each other's.
MAX_SENTENCES = 40
#: A duplicate: vectors at least this similar and at least this share of the words in common.
DUPLICATE_SIMILARITY = 0.93
DUPLICATE_WORDS = 0.8
#: Two sentences are on one subject when this share of their content words is shared, and at least MIN_SHARED.
SUBJECT_WORDS = 0.5
MIN_SHARED = 2
#: Words a "says not …" reason quotes after the negation.
QUOTED_WORDS = 5

_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_WORD = re.compile(r"\w+(?:'\w+)?")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
NEGATIONS = frozenset(
    {"not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "cannot", "without", "isn't", "aren't",
     "wasn't", "weren't", "doesn't", "don't", "didn't", "won't", "can't", "shouldn't", "mustn't", "hasn't", "haven't"}
)  # fmt: skip


class Verdict(NamedTuple):
    kind: str  # "duplicate" | "may_conflict"
    reason: str


def compare(a: str, b: str, similarity: float) -> Verdict | None:
    """How the texts `a` and `b` (vectors `similarity` apart) overlap, or None when they don't."""
    a, b = a[:TEXT_CHARS], b[:TEXT_CHARS]
    if _flat(a) == _flat(b):
        return Verdict("duplicate", "same text")
    conflict = _conflict(_sentences(a), _sentences(b))
    if conflict:
        return Verdict("may_conflict", conflict)
    shared = _overlap(set(_words(a)), set(_words(b)))
    if similarity >= DUPLICATE_SIMILARITY and shared >= DUPLICATE_WORDS:
        return Verdict("duplicate", f"nearly the same text ({round(shared * 100)}% of words shared)")
    return None


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _sentences(text: str) -> list[str]:
    return [s for s in (p.strip() for p in _SENTENCE.split(text)) if s][:MAX_SENTENCES]


def _overlap(x: set[str], y: set[str]) -> float:
    return len(x & y) / len(x | y) if x | y else 1.0


def _subject(sentence: str) -> set[str]:
    """A sentence's content words: no numbers, negations or function words."""
    return {w for w in _words(sentence) if not w[0].isdigit() and w not in NEGATIONS and w not in STOPWORDS}


def _conflict(xs: list[str], ys: list[str]) -> str | None:
    """The first difference between two sentences on one subject, as a short reason."""
    subjects = [_subject(y) for y in ys]
    for x in xs:
        sx = _subject(x)
        if len(sx) < MIN_SHARED:
            continue
        for y, sy in zip(ys, subjects, strict=True):
            if len(sx & sy) >= MIN_SHARED and _overlap(sx, sy) >= SUBJECT_WORDS:
                reason = _numbers_differ(x, y) or _negation_differs(x, y)
                if reason:
                    return reason
    return None


def _numbers_differ(x: str, y: str) -> str | None:
    nx, ny = _NUMBER.findall(x), _NUMBER.findall(y)
    only_x = [n for n in nx if n not in ny]
    only_y = [n for n in ny if n not in nx]
    return f"{only_x[0]} vs {only_y[0]}" if only_x and only_y else None


def _negation_differs(x: str, y: str) -> str | None:
    wx, wy = _words(x), _words(y)
    negated_x = sum(w in NEGATIONS for w in wx) % 2
    if negated_x == sum(w in NEGATIONS for w in wy) % 2:
        return None
    words = wx if negated_x else wy
    at = next(i for i, w in enumerate(words) if w in NEGATIONS)
    quoted = " ".join(words[at + 1 : at + 1 + QUOTED_WORDS])
    return f"says not {quoted}…" if quoted else "says not"
