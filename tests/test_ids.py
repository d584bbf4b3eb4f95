"""A card id in its owner's namespace, case by case from common/card_id_cases.json:
firestore.rules (rules-tests/cards-write.test.mjs) and the SPA (web/src/cards/cardids.test.ts)
are checked on the same cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardchat import ids

CASES = json.loads((Path(__file__).resolve().parents[1] / "common" / "card_id_cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['uid']}:{c['id']}" for c in CASES])
def test_whose_namespace_an_id_is_in(case):
    assert ids.is_own_card_id(case["uid"], case["id"]) is case["own"]


def test_own_card_id_is_in_the_namespace():
    assert ids.own_card_id("alice", "notes-1") == "alice_notes-1"
    assert ids.is_own_card_id("alice", ids.own_card_id("alice", "x"))
