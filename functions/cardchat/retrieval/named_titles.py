"""A card whose title the question names verbatim goes first.

"What does my card Project Zebra say about deploys?" means that card, however the rankers score
it against cards that talk more about deploys. A title is named when it appears in the question
as a whole phrase: case and runs of whitespace aside, bounded by non-word characters on both
sides (so "Git" is named in "git rebase" but not in "digit"). Titles shorter than
MIN_TITLE_CHARS are never taken as named: one or two letters appear in questions by chance.
"""

from __future__ import annotations

import re

MIN_TITLE_CHARS = 3


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def names(question: str, title: str) -> bool:
    """Whether `question` names `title` verbatim (see the module's docstring)."""
    wanted = _norm(title)
    if len(wanted) < MIN_TITLE_CHARS:
        return False
    return re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", _norm(question)) is not None
