"""Function words by language: BM25 drops them, and their language tells how far the dense
ranker can read a question.

The dense ranker is all-MiniLM-L6-v2, trained on English. On a question in another language its
similarities are weak (on French questions hybrid fell behind BM25 alone) or noise (on Japanese:
the embedder gives such a question a zero vector, embeddings/minilm.py). `english_share` reads the
language from the question's own words, as language identifiers for short texts do: articles,
prepositions and pronouns (`the`, `how`, `my` against `les`, `une`, `het`), plus any word holding a
letter outside ASCII (`répertoire`, `prüfen`, Cyrillic, CJK), which English seldom writes. The
fusion weighs the dense ranker by that share (rank.fuse_scores): a question with no sign of another
language keeps the full weight, one in French alone is ranked by BM25. Nothing in it was fitted to
an eval set (eval/README.md has the figures, per half of the French set).
"""

from __future__ import annotations

import re

from cardchat.embeddings.scripts import fold

ENGLISH = frozenset(
    """a an and are as at be by can do does for from how i if in into is it its me my of on or so
    that the their then there these this to was what when where which who why will with you your""".split()
)
DUTCH_GERMAN = frozenset("de het een en van ik hoe wat der die das und ist ich wie ein eine mit zu".split())
# Articles, prepositions and pronouns, accents folded as BM25's terms are.
FRENCH = frozenset(
    """le la les un une des du au aux et ou en dans par pour sur avec
    ce ces cet cette qui que se sa son ses est""".split()
)
#: Other languages' function words that are English words too: evidence of neither.
_ENGLISH_WORDS_TOO = frozenset(["die", "son"])
_OTHER = (DUTCH_GERMAN | FRENCH) - ENGLISH - _ENGLISH_WORDS_TOO
_WORD = re.compile(r"[^\W\d_]+")


def english_share(question: str) -> float:
    """English function words over all the signs of a language the question holds (function
    words of English or of another language, words with a non-ASCII letter), in [0, 1]; 1.0 when
    it holds none (`core.autocrlf`, `git stash pop`): the dense ranker keeps its weight unless the
    question shows another language."""
    english = other = 0
    for word in _WORD.findall(question.lower()):
        if word in ENGLISH:
            english += 1
        elif not word.isascii() or fold(word) in _OTHER:
            other += 1
    return 1.0 if english + other == 0 else english / (english + other)
