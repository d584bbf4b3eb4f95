"""english_share: how much of a question the English dense model reads, from its own words."""

from __future__ import annotations

import pytest

from cardchat.retrieval import bm25, function_words
from cardchat.retrieval.function_words import english_share


@pytest.mark.parametrize(
    ("question", "share"),
    [
        ("how do I move my commits onto a different base", 1.0),
        ("git stash pop", 1.0),  # no sign of any language: the dense ranker keeps its weight
        ("core.autocrlf", 1.0),
        ("creer des repertoires", 0.0),  # typed without accents: its function words tell
        ("créer des répertoires", 0.0),
        ("Steuer Erklärung Frist", 0.0),  # no function word, but a letter English seldom writes
        ("envoyer un signal a un processus", 1 / 3),  # "a" is English too
        ("ファイルの末尾を表示する", 0.0),
        ("verzekering voor de tandarts", 0.0),
        ("the son of a process that will die", 1.0),  # other languages' function words, English words too
    ],
)
def test_english_share(question, share):
    assert english_share(question) == pytest.approx(share)


def test_bm25_drops_the_function_words_of_every_language():
    assert bm25.STOPWORDS == function_words.ENGLISH | function_words.DUTCH_GERMAN | function_words.FRENCH
    assert bm25.tokenize("créer des répertoires pour le système") == ["creer", "repertoires", "systeme"]
