"""One definition of a valid card, case by case from common/card_validity_cases.json:
web/src/cards/cardvalidity.test.ts checks the SPA's validator on the same cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cardchat.parsing import card_validity

TABLE = json.loads((Path(__file__).resolve().parents[2] / "common" / "card_validity_cases.json").read_text())


def expand(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("repeat:"):
        _, char, n = value.split(":")
        return char * int(n)
    if isinstance(value, list) and value[:1] == ["repeat"]:
        return [f"{value[1]}{i}" for i in range(value[2])]
    if isinstance(value, list):
        return [expand(v) for v in value]
    return value


@pytest.mark.parametrize("case", TABLE["cases"], ids=lambda c: json.dumps(c["change"])[:60])
def test_shared_case(case):
    card = {**TABLE["base"], **{k: expand(v) for k, v in case["change"].items()}}
    bad = {field for field, _ in card_validity.problems(card)}
    assert bad == ({case["bad"]} if case["bad"] else set())
