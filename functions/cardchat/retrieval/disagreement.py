"""Whether two near cards say the same thing, or may say different things on the same subject.

Offline and word by word, on the embeddable text (Markdown stripped, embeddings/text.py):
- the same text, or nearly: a high vector similarity and most words shared: `duplicate`;
- a sentence of one and a sentence of the other on one subject, one saying otherwise (the rule of
  retrieval/conflicts.py, either sentence's subject held by the other: another number, date or
  version, "3.11 vs 3.12", or a negation, "says not …"): `may_conflict`.
The vector similarity only chooses the pairs (retrieval/neighbours.py); this module decides.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from cardchat.retrieval import conflicts
from cardchat.retrieval.claim_words import words

#: Characters of each card compared: a long card's opening, so a pair costs a bounded time.
TEXT_CHARS = 4000
#: Sentences of each card compared with each other's.
MAX_SENTENCES = 40
#: A duplicate: vectors at least this similar and at least this share of the words in common.
DUPLICATE_SIMILARITY = 0.93
DUPLICATE_WORDS = 0.8

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


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
    shared = _overlap(set(words(a)), set(words(b)))
    if similarity >= DUPLICATE_SIMILARITY and shared >= DUPLICATE_WORDS:
        return Verdict("duplicate", f"nearly the same text ({round(shared * 100)}% of words shared)")
    return None


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def _sentences(text: str) -> list[str]:
    return [s for s in (p.strip() for p in _SENTENCE.split(text)) if s][:MAX_SENTENCES]


def _overlap(x: set[str], y: set[str]) -> float:
    return len(x & y) / len(x | y) if x | y else 1.0


def _conflict(xs: list[str], ys: list[str]) -> str | None:
    """The reason of the first sentence pair on one subject where one says otherwise."""
    read_ys = [conflicts.Reading(y) for y in ys]
    for rx in map(conflicts.Reading, xs):
        for ry in read_ys:
            if conflicts.one_subject(rx.subject, ry.subject):
                found = conflicts.difference(rx, ry)
                if found:
                    return found.reason
    return None
