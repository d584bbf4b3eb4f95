"""Citations and claims without a source: the shared rule on the shared
cases; the SPA runs the same cases (web/src/chat/claims.test.ts,
web/src/chat/citations.test.ts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardchat.generation import claims
from cardchat.providers import offline

COMMON = Path(__file__).resolve().parents[2] / "common"
CASES = json.loads((COMMON / "claim_cases.json").read_text())["cases"]
CITATIONS = json.loads((COMMON / "citation_cases.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_shared_cases(case):
    assert claims.uncited_sentences(case["markdown"]) == case["uncited"]
    assert claims.uncited_count(case["markdown"]) == len(case["uncited"])


def test_what_the_offline_answerer_says_about_itself_is_never_a_claim():
    for text in (offline.NOTE, offline.NO_CARDS, offline.NOTHING_RELATED, offline.NOTE_DECLINED):
        assert claims.uncited_count(text) == 0
    for nearest in ([], [2], [2, 5, 1]):
        assert claims.uncited_count(offline.declined(nearest)) == 0


@pytest.mark.parametrize("case", CITATIONS["cases"], ids=[c["name"] for c in CITATIONS["cases"]])
def test_the_shared_citation_cases(case):
    card_ids = CITATIONS["card_ids"]
    assert claims.citations(case["markdown"], card_ids) == case["sources"]
    names = claims.citable(card_ids)
    assert claims.uncited_sentences(case["markdown"], names) == case["uncited"]
    assert claims.uncited_count(case["markdown"], names) == len(case["uncited"])
    # what the SPA links: each citation's numbers that name a card, in text order
    linked = [n for m in claims.CITATION.finditer(case["markdown"]) for n in claims.citation_numbers(m.group(0))]
    assert [n for n in linked if n in names] == case["links"]


def test_a_card_is_known_by_its_first_number_and_a_withdrawn_one_by_none():
    assert claims.citable(["a", "b", "", "a", "c"]) == {1, 2, 5}
    assert claims.citable([]) == frozenset()
