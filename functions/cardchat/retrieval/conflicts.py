"""Whether a text says otherwise than another on the same subject: the one rule for "conflicting"
(checkDraft, generation/draft_check.py) and "may conflict" (findOverlaps, retrieval/disagreement.py).

Offline and lexical, on the words the citation checks read (retrieval/claim_words.py): a passage says
otherwise than a claim when it is on the claim's subject (it holds SAME_SUBJECT_SHARE of the claim's
content words once numbers, dates and function words of English, Dutch, German or French are set
aside, and at least MIN_SHARED of them) and differs in
one of the ways embeddings miss, looked for in this order:
- `negation`: one of them is negated (an odd number of negations) and the other is not;
- `date`: both name a year, ISO date, month or weekday, and each names one the other does not;
- `number`: both hold a number, and each holds one the other lacks.
Each with a short reason: "says not …" (the words the negated one denies), "2022 vs 2023".
The difference is symmetric: a text silent on a number or date, or less precise ("2023" beside
"October 2023"), does not say otherwise, it does not say. Only the subject is one way (a passage
may say more than the claim); comparing two passages both ways is the caller's choice.

Chosen where checkDraft's and findOverlaps' former rules differed: the subject is the share of the
claim's words (not of both texts' words together), a negation counts by parity and "doesn't" is one,
a month or weekday is a date (not only a number is), and a negation is looked for first."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from cardchat.retrieval import function_words
from cardchat.retrieval.claim_words import content_words, is_negation, negated, number_list, said_words, share

#: Of the claim's content words (numbers and dates set aside), the share a passage holds to be on its subject...
SAME_SUBJECT_SHARE = 0.6
#: ...and at least this many of them: one word in common is too thin a subject.
MIN_SHARED = 2
#: Words a "says not …" reason quotes after the negation.
QUOTED_WORDS = 5

_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_DATE_WORDS = frozenset(_MONTHS) | _WEEKDAYS
# The claim words' stop list is English (the citation checks' verdicts rest on it); a card may be Dutch,
# German or French, and its function words are no subject either.
_NOT_SUBJECT = _DATE_WORDS | function_words.ENGLISH | function_words.DUTCH_GERMAN | function_words.FRENCH
_YEAR = re.compile(r"(?<![\d.,])(1[5-9]\d\d|2\d\d\d)(?![\d.,]\d)")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_LETTERS = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Difference:
    kind: str  # "negation" | "date" | "number"
    reason: str  # "says not …", "3.11 vs 3.12"


@dataclass(frozen=True)
class Conflict:
    passage: str
    kind: str


def _date_list(text: str) -> list[str]:
    """The years, ISO dates, months and weekdays a text names, lowercased, in order."""
    found = [(m.start(), m.group()) for m in _ISO_DATE.finditer(text)]
    found += [(m.start(1), m.group(1)) for m in _YEAR.finditer(text)]
    for m in _LETTERS.finditer(text):
        w = m.group().lower()
        # "may" and "march" are also verbs: a month word counts beside a number only ("May 2020", "3 March").
        beside = rf"(?i)\b{w}\b\.?\s*\d|\d\s*(?:st|nd|rd|th)?\s+{w}\b"
        if w in _WEEKDAYS or (w in _DATE_WORDS and re.search(beside, text)):
            found.append((m.start(), w))
    return list(dict.fromkeys(t for _, t in sorted(found, key=lambda x: (x[0], -len(x[1])))))


def dates(text: str) -> set[str]:
    """The years, ISO dates, months and weekdays a text names, lowercased."""
    return set(_date_list(text))


def subject(text: str) -> set[str]:
    """Its content words without numbers, dates and function words: what it is about."""
    return {w for w in content_words(text) if not any(c.isdigit() for c in w)} - _NOT_SUBJECT


def same_subject(about: set[str], held: set[str]) -> bool:
    """Whether a text whose subject (`subject`) is `held` is on the subject `about` of another."""
    return len(about & held) >= MIN_SHARED and share(about, held) >= SAME_SUBJECT_SHARE


def one_subject(a: set[str], b: set[str]) -> bool:
    """Whether either of two texts (their `subject`s) is on the other's subject."""
    common = len(a & b)
    return common >= MIN_SHARED and common / min(len(a), len(b)) >= SAME_SUBJECT_SHARE


class Reading:
    """What the rule reads of a text, read once however many texts it is compared with (and what
    only a text on the subject needs, only then)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.subject = subject(text)

    @cached_property
    def negated(self) -> bool:
        return negated(self.text)

    @cached_property
    def dates(self) -> list[str]:
        return _date_list(self.text)

    @cached_property
    def numbers(self) -> list[str]:
        """An ISO date's parts left out (a year stays: "2048 bytes" is a number too)."""
        return number_list(_ISO_DATE.sub(" ", self.text))


def _versus(xs: list[str], ys: list[str]) -> str | None:
    only_x, only_y = [x for x in xs if x not in ys], [y for y in ys if y not in xs]
    return f"{only_x[0]} vs {only_y[0]}" if only_x and only_y else None


def _denied(text: str) -> str:
    said = said_words(text)
    at = next(i for i, w in enumerate(said) if is_negation(w))
    quoted = " ".join(said[at + 1 : at + 1 + QUOTED_WORDS])
    return f"says not {quoted}…" if quoted else "says not"


def difference(a: Reading, b: Reading) -> Difference | None:
    """How `a` and `b` differ (whatever their subjects), the reason naming `a`'s side first, or None."""
    if a.negated != b.negated:
        return Difference("negation", _denied(a.text if a.negated else b.text))
    reason = _versus(a.dates, b.dates)
    if reason:
        return Difference("date", reason)
    reason = _versus(a.numbers, b.numbers)
    return Difference("number", reason) if reason else None


def says_otherwise(claim: str, passage: str) -> Difference | None:
    """How `passage` says otherwise than `claim`, or None: on another subject, agreeing, or silent on what differs."""
    said, held = Reading(claim), Reading(passage)
    return difference(said, held) if same_subject(said.subject, held.subject) else None


def kind_of_conflict(claim: str, passage: str) -> str | None:
    found = says_otherwise(claim, passage)
    return found.kind if found else None


def conflict(claim: str, passages: Iterable[str]) -> Conflict | None:
    """The passage most on the claim's subject among those that say otherwise, or None."""
    about = subject(claim)
    found = [(share(about, subject(p)), p, k) for p in passages if (k := kind_of_conflict(claim, p))]
    if not found:
        return None
    _, passage, kind = max(found, key=lambda x: x[0])
    return Conflict(passage, kind)
