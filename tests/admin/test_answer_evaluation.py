"""The answer table (admin/answer_evaluation.py): its lexical support rule,
its labelled set, and the offline answerer's figures, held here."""

from __future__ import annotations

import pytest

from cardchat.admin import answer_evaluation as ae
from cardchat.admin.evaluation import VectorCache

SET = ae.ANSWERS_DIR / "git-demo-coverage.json"


@pytest.mark.parametrize(
    ("sentence", "card", "expected"),
    [
        ("Use `git rebase --onto` to move commits [2].", "# Rebase\nUse git rebase --onto to move commits.", True),
        ("The melting point of tungsten is 3422 degrees [1].", "# Rebase\nUse git rebase to move commits.", False),
        # one word of ten missing still holds; a word cut by the quote's ellipsis is not counted
        ("a b c d e f g h i zz [1]", "a b c d e f g h i", True),
        ("a b c d e f g zz yy xx [1]", "a b c d e f g h i", False),
        ("a b c d e f g h i reba… [1]", "a b c d e f g h i rebase", True),
    ],
)
def test_a_cited_sentence_is_supported_when_its_card_holds_most_of_its_words(sentence, card, expected):
    assert ae.supported(sentence, card) is expected


def test_the_labelled_set_is_half_on_topic_half_off_topic_in_each_half():
    s = ae.load_answer_set(SET)
    labels = [on for _, on in s.questions]
    assert len(labels) >= 40 and labels.count(True) == labels.count(False)
    assert labels[0::2].count(True) == labels[0::2].count(False)  # the tuning half holds both
    assert len({q for q, _ in s.questions}) == len(labels)


def test_the_offline_answerers_figures_hold():
    """Citation precision 1.0 (it quotes its cards) and coverage accuracy at least 0.9."""
    from cardchat.embeddings import get_embedder

    s = ae.load_answer_set(SET)
    embedder = get_embedder("minilm")
    cache = VectorCache(embedder.model_id)  # the eval's own cache: a rerun embeds nothing
    figures = ae.evaluate(s, embedder, cache)
    cache.save()
    assert figures.citation_precision == 1.0
    assert figures.accuracy() >= 0.9, ae.table(s, figures)
    assert sum(a.citations for a in figures.answers) > 0  # the precision is over real citations
