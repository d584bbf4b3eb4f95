"""A card whose title the question names verbatim goes first.

"What does my card Project Zebra say about deploys?" means that card, however the rankers score
it against cards that talk more about deploys. A title is named when it appears in the question
as a whole phrase: case and runs of whitespace aside, from the start of a word to the end of a
word (so "Git" is named in "git rebase" but not in "digit"; a title's own leading and trailing
punctuation aside). Titles shorter than MIN_TITLE_CHARS are never taken as named: one or two
letters appear in questions by chance.

The retrieval index keeps a short key of each card's title (`title_key`), so the cards a question
names are found among the whole collection by the keys of the question's phrases
(`question_keys`), without reading a card; a match is then read and checked with `names`.
"""

from __future__ import annotations

import hashlib
import re

MIN_TITLE_CHARS = 3
#: The longest phrase of a question compared with titles, in words, and the words of a question looked at.
MAX_TITLE_WORDS = 24
MAX_QUESTION_WORDS = 400
_EDGES = re.compile(r"^\W+|\W+$")
_WORD = re.compile(r"\w+")


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _key(phrase: str) -> str:
    return hashlib.sha1(phrase.encode()).hexdigest()[:10]


def _title(title: str) -> str:
    """The title as compared: normalised, its leading and trailing punctuation aside; "" if too short."""
    wanted = _EDGES.sub("", _norm(title))
    return wanted if len(wanted) >= MIN_TITLE_CHARS else ""


def names(question: str, title: str) -> bool:
    """Whether `question` names `title` verbatim (see the module's docstring)."""
    wanted = _title(title)
    return bool(wanted) and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", _norm(question)) is not None


def title_key(title: str) -> str:
    """What the retrieval index keeps of a card's title: a key of it as compared, or "" for none."""
    wanted = _title(title)
    return _key(wanted) if wanted else ""


def question_keys(question: str) -> set[str]:
    """The keys of every phrase of `question` a title could be: word start to word end, up to
    MAX_TITLE_WORDS words, within its first MAX_QUESTION_WORDS words."""
    text = _norm(question)
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text)][:MAX_QUESTION_WORDS]
    keys = set()
    for i, (start, _) in enumerate(spans):
        for _, end in spans[i : i + MAX_TITLE_WORDS]:
            if end - start >= MIN_TITLE_CHARS:
                keys.add(_key(text[start:end]))
    return keys
