"""The words of a claim or passage as the lexical checks read them: its content words, numbers and
negation. One reading for the citation checks (generation/citation_checks.py) and the rule that
finds a text saying otherwise (retrieval/conflicts.py), so a sentence counts as negated, or as
holding a number, the same way wherever it is judged."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:[.,][0-9]+)*", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SAID = re.compile(r"[^\W_]+(?:'[^\W_]+|[.,][0-9]+)*", re.UNICODE)
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve twenty hundred thousand million
    billion once twice thrice half double triple first second third fourth fifth""".split()
)
NEGATION = frozenset(
    "not no never none nothing nobody neither nor cannot without isn't aren't wasn't weren't don't doesn't didn't "
    "won't wouldn't can't couldn't shouldn't mustn't hasn't haven't hadn't".split()
)
STOP = frozenset(
    """a an the and or but of to in on at by for with from as is are was were be been being it its this that
    these those there their they them you your we our he she his her i me my so if then than into onto
    over under about also only just very can could will would should may might must do does did has have
    had which who whom what when where why how all any each such some more most other""".split()
)


def words(text: str) -> list[str]:
    """Its words, lowercased, in order ("3.11" and "1,000" one word each)."""
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP and w not in NEGATION and (len(w) > 2 or w.isdigit())}


def share(claim: set[str], passage: set[str]) -> float:
    """How much of the claim's content words the passage holds."""
    return len(claim & passage) / len(claim) if claim else 0.0


def number_list(text: str) -> list[str]:
    """Its numbers, in digits or words, each once, in the order it says them."""
    found = [(m.start(), m.group()) for m in _NUMBER.finditer(text)]
    found += [(m.start(), w) for m in _WORD.finditer(text) if (w := m.group().lower()) in _NUMBER_WORDS]
    return list(dict.fromkeys(n for _, n in sorted(found)))


def numbers(text: str) -> set[str]:
    return set(number_list(text))


def said_words(text: str) -> list[str]:
    """Its words as a negation is looked for among them: "doesn't" one word (a typographic apostrophe read as "'")."""
    return [w.lower() for w in _SAID.findall(text.replace("\u2019", "'"))]


def is_negation(word: str) -> bool:
    return word in NEGATION or word.endswith("n't")


def negated(text: str) -> bool:
    """Whether an odd number of negations turn it around ("not never" says it again)."""
    return sum(map(is_negation, said_words(text))) % 2 == 1
