"""Claims without a source (issue 16, point 2): the shared rule on the
shared cases; the SPA runs the same cases (web/src/claims.test.ts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardchat import claims
from cardchat.providers import offline

CASES = json.loads((Path(__file__).resolve().parents[1] / "common" / "claim_cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_shared_cases(case):
    assert claims.uncited_sentences(case["markdown"]) == case["uncited"]
    assert claims.uncited_count(case["markdown"]) == len(case["uncited"])


def test_what_the_offline_answerer_says_about_itself_is_never_a_claim():
    for text in (offline.NOTE, offline.NO_CARDS, offline.NOTHING_RELATED):
        assert claims.uncited_count(text) == 0
