"""Whether a passage says otherwise than a claim: the one rule for "conflicting", shared by the
draft check (generation/draft_check.py) and any comparison of one card's text with another's.

Offline and lexical, as the citation checks' `turned_around` (citation_checks.py), whose words,
numbers and negations it reads: a passage conflicts with a claim when it is about the same subject
(it holds most of the claim's content words once numbers and dates are set aside) and says
otherwise in one of the ways embeddings miss:
- `negation`: one of them is negated and the other is not;
- `date`: both name a year, month or weekday, and not the same ones;
- `number`: both hold a number, and each holds one the other lacks.
A passage that holds no number or date where the claim has one does not say otherwise: it does
not say (the claim is then unsupported, not conflicting).

The comparison is one way, the claim's words against the passage's: a passage may say more than
the claim. Comparing two passages both ways is the caller's choice."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cardchat.generation.citation_checks import content_words, negated, numbers, share

#: Of the claim's content words (numbers and dates set aside), the share a passage holds to be on its subject.
SAME_SUBJECT_SHARE = 0.6

_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_DATE_WORDS = frozenset(_MONTHS + _WEEKDAYS)
_YEAR = re.compile(r"(?<![\d.,])(1[5-9]\d\d|2\d\d\d)(?![\d.,]\d)")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


@dataclass(frozen=True)
class Conflict:
    passage: str
    kind: str  # "negation" | "date" | "number"


def dates(text: str) -> set[str]:
    """The years, ISO dates, months and weekdays a text names, lowercased."""
    words = {w.lower() for w in re.findall(r"[^\W\d_]+", text)}
    # "may" and "march" are also verbs: a month word counts beside a number only ("May 2020", "3 March").
    named = {w for w in words & _DATE_WORDS if re.search(rf"(?i)\b{w}\b\.?\s*\d|\d\s*(?:st|nd|rd|th)?\s+{w}\b", text)}
    weekdays = words & frozenset(_WEEKDAYS)
    return set(_ISO_DATE.findall(text)) | set(_YEAR.findall(text)) | named | weekdays


def _plain_numbers(text: str) -> set[str]:
    """Its numbers, an ISO date's parts left out (a year stays: "2048 bytes" is a number too)."""
    return numbers(_ISO_DATE.sub(" ", text))


def subject(text: str) -> set[str]:
    """Its content words without numbers and dates: what it is about."""
    return {w for w in content_words(text) if not any(c.isdigit() for c in w)} - _DATE_WORDS


def kind_of_conflict(claim: str, passage: str) -> str | None:
    """How `passage` says otherwise than `claim` ("negation", "date", "number"), or None: on another
    subject, agreeing, or silent on what differs."""
    about = subject(claim)
    if not about or share(about, subject(passage)) < SAME_SUBJECT_SHARE:
        return None
    if negated(claim) != negated(passage):
        return "negation"
    said, held = dates(claim), dates(passage)
    if said and held and said != held and not said <= held:
        return "date"
    said_n, held_n = _plain_numbers(claim), _plain_numbers(passage)
    if said_n - held_n and held_n - said_n:
        return "number"
    return None


def conflict(claim: str, passages: Iterable[str]) -> Conflict | None:
    """The passage most on the claim's subject among those that say otherwise, or None."""
    about = subject(claim)
    found = [(share(about, subject(p)), p, k) for p in passages if (k := kind_of_conflict(claim, p))]
    if not found:
        return None
    _, passage, kind = max(found, key=lambda x: x[0])
    return Conflict(passage, kind)
