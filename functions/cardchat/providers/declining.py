"""How an answer says that the chat's cards don't cover its question: the
sentence it opens with (DECLINED; the offline answerer writes it, keyed models
are told to in INSTRUCTION), and the mark of a question posted by the SPA's
"Ask anyway" (ANYWAY). Read from common/claims.json (`coverage`), which the
SPA reads too; the rule that turns an answer into its `coverage` is
generation/coverage.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_COMMON = Path(__file__).resolve().parents[1] / "common" / "claims.json"
if not _COMMON.exists():  # running from the repository, not a deployed copy
    _COMMON = Path(__file__).resolve().parents[3] / "common" / "claims.json"
RULE: dict[str, Any] = json.loads(_COMMON.read_text())["coverage"]
VALUES: tuple[str, ...] = tuple(RULE["values"])
DECLINED: str = RULE["declined"]
ANYWAY: str = RULE["anyway"]
#: What keyed models read before the background (providers.stream).
INSTRUCTION = (
    "If the cards do not cover the question, begin your answer with exactly this sentence: "
    f'"{DECLINED}" Then name the nearest cards by their numbers, like [2], and answer from '
    "general knowledge only if you say that it is not from the cards."
)


def question_of(text: str) -> str:
    """The question an answer was asked, without the "Ask anyway" mark."""
    stripped = text.strip()
    return stripped[len(ANYWAY) :].strip() if stripped.startswith(ANYWAY) else stripped
