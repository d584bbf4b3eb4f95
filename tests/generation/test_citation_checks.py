"""The citation checks' rule (generation/citation_checks.py) on crafted claims against one card."""

from __future__ import annotations

import numpy as np
import pytest

from cardchat.generation import citation_checks as cc

CARD = (
    "Rebasing\n\n"
    "Git rebase replays your commits on top of another branch. It rewrites history, so never rebase "
    "commits that others have pulled. The default editor opens for an interactive rebase with the -i "
    "option. Alice reviewed the rebase guide written by Bob in 2019. A rebase keeps 3 backup refs."
)


@pytest.fixture(scope="module")
def vectors() -> cc.VectorCache:
    return cc.shared_vectors()


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Rebase replays your commits on top of another branch.", "supported"),
        ("Git rebase rewrites history, so you should never rebase commits others have pulled.", "supported"),
        ("Alice reviewed the rebase guide written by Bob in 2019.", "supported"),
        ("A rebase keeps 5 backup refs.", "weak"),  # a changed number
        ("Git rebase does not replay your commits on top of another branch.", "weak"),  # a negation
        ("It rewrites history, so always rebase commits that others have pulled.", "weak"),  # one taken away
        ("Bob reviewed the rebase guide written by Alice in 2019.", "weak"),  # swapped names
        ("Sourdough bread needs a starter fed with flour and water every day.", "unsupported"),
        ("Rebasing is faster than merging on large repositories with many branches.", "weak"),  # on topic, not said
    ],
)
def test_verdict(claim: str, expected: str, vectors: cc.VectorCache) -> None:
    assert cc.verdict(claim, cc.passages(CARD), vectors) == expected


def test_an_empty_card_supports_nothing(vectors: cc.VectorCache) -> None:
    assert cc.verdict("Git rebase replays your commits on another branch.", [], vectors) == "unsupported"


def test_claims_are_indexed_across_the_answer_as_the_uncited_rule_counts_them(vectors: cc.VectorCache) -> None:
    answer = (
        "Git rebase replays your commits on top of another branch [1].\n\n"
        "Sure:\n\n"  # too short to be a claim: not counted
        "- Sourdough bread needs a starter fed every day, as bakers say.\n"  # an uncited claim: counted
        "- A rebase keeps 3 backup refs [1][2]. A rebase keeps 3 backup refs [9].\n"
    )
    checks = cc.check(answer, {1: CARD, 2: "Bread\n\nSourdough needs a starter."}, frozenset({1, 2}), vectors)
    assert [c.to_dict() for c in checks] == [
        {"sentence": 0, "n": 1, "verdict": "supported"},
        {"sentence": 2, "n": 1, "verdict": "supported"},
        {"sentence": 2, "n": 2, "verdict": "unsupported"},
    ]  # [9] names no card: the last claim carries no check


def test_the_cache_embeds_a_text_once_and_keeps_its_size() -> None:
    seen: list[str] = []

    def embed(texts):
        import numpy as np

        seen.extend(texts)
        return np.ones((len(texts), 2), np.float32)

    cache = cc.VectorCache(embed, size=2)
    cache.get(["a", "b"])
    cache.get(["b", "a"])
    cache.get(["c"])
    cache.get(["a"])
    assert seen == ["a", "b", "c"]
    cache.get(["b"])
    assert seen == ["a", "b", "c", "b"]  # the least recently used went first


def test_a_number_written_as_a_word_counts_as_a_number(vectors: cc.VectorCache) -> None:
    card = cc.passages("Tides\n\nTides rise and fall twice a day as the moon pulls the sea.")
    assert cc.verdict("Tides rise and fall twice a day as the moon pulls the sea.", card, vectors) == "supported"
    assert cc.verdict("Tides rise and fall three times a day as the moon pulls the sea.", card, vectors) == "weak"


def test_an_answer_embeds_at_most_its_bound_and_decides_the_rest_by_words(vectors: cc.VectorCache, monkeypatch) -> None:
    monkeypatch.setattr(cc, "MAX_EMBEDDED", 10)
    embedded: list[str] = []

    def embed(texts):
        embedded.extend(texts)
        found = vectors.get(texts)  # the real vectors, counted
        return np.stack([found[t] for t in texts])

    answer = " ".join(f"Sourdough loaf number {i} rises overnight in a cold kitchen [1]." for i in range(60))
    checks = cc.check(answer, {1: CARD}, frozenset({1}), cc.VectorCache(embed))
    assert len(checks) == 60 and {c.verdict for c in checks} == {"unsupported"}
    assert 0 < len(embedded) <= 10
