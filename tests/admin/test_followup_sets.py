"""The shipped follow-up sets (eval/followups/, the per-turn metric) are well
formed: every answering card exists, and a follow-up is on another topic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardchat.admin.turn_evaluation import FOLLOWUPS_DIR, load_followups
from cardchat.llm.models import MODELS

SETS = sorted(FOLLOWUPS_DIR.glob("*.json"))


def test_a_follow_up_set_is_shipped():
    assert "git-demo-followups.json" in {p.name for p in SETS}


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_every_pair_is_well_formed(path: Path):
    fs = load_followups(path)  # raises on an unknown answering id
    assert fs.model in MODELS and 0 < fs.background_fraction <= 1
    assert len(fs.pairs) >= 50
    raw = json.loads(path.read_text())["pairs"]
    assert [p["answering"] for p in raw] == [p.answering for p in fs.pairs]
    for p in fs.pairs:
        assert p.first.strip() and p.follow_up.strip() and p.first != p.follow_up
