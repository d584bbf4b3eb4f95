"""Citations and claims without a citation in an answer: one definition,
shared with the SPA through common/claims.json and tested on both sides with
common/claim_cases.json and common/citation_cases.json. The server counts
the uncited claims and lists the cited cards when an answer completes
(ChatMessage.uncited_claims, also logged, and ChatMessage.sources); the SPA
marks the same sentences and shows the same citations under the answer.
A [n] that names no card of the background (0, beyond it, withdrawn) is
plain text, not a citation."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

_COMMON = Path(__file__).resolve().parents[1] / "common" / "claims.json"
if not _COMMON.exists():  # running from the repository, not a deployed copy
    _COMMON = Path(__file__).resolve().parents[3] / "common" / "claims.json"
RULE: dict[str, Any] = json.loads(_COMMON.read_text())
MIN_WORDS: int = RULE["min_words"]
SENTENCE_END = re.compile(RULE["sentence_end"])
CITATION = re.compile(RULE["citation"])
NOT_CLAIMS: tuple[str, ...] = tuple(RULE["not_claims"])


@dataclass(frozen=True)
class Sentence:
    start: int  # offsets into the block's text
    end: int
    claim: bool
    cited: bool


def sentences(block: str, citable: Collection[int] | None = None) -> list[Sentence]:
    """A block's sentences, each judged by the shared rule: cited when a
    citation in it names a number of `citable` (any number when None)."""
    if block.lstrip().startswith(NOT_CLAIMS):
        return []
    out: list[Sentence] = []
    start = 0
    ends = [m.end() for m in SENTENCE_END.finditer(block)]
    for end in [*ends, len(block)]:
        text = block[start:end]
        if text.strip():
            lead = len(text) - len(text.lstrip())
            out.append(_judge(block, start + lead, start + len(text.rstrip()), citable))
        start = end
    return out


def _judge(block: str, start: int, end: int, citable: Collection[int] | None) -> Sentence:
    text = block[start:end]
    words = sum(1 for w in text.split() if any(c.isalnum() for c in w))
    bare = CITATION.sub("", text).rstrip()
    claim = words >= MIN_WORDS and not bare.endswith((":", "?"))
    cited = any(
        citable is None or any(n in citable for n in citation_numbers(m.group(0))) for m in CITATION.finditer(text)
    )
    return Sentence(start, end, claim, cited)


def uncited(block: str, citable: Collection[int] | None = None) -> list[str]:
    return [block[s.start : s.end] for s in sentences(block, citable) if s.claim and not s.cited]


def blocks(markdown: str) -> list[str]:
    """Paragraphs and list items' own text, as the SPA's rendered DOM has
    them (textContent): no headings, code, tables or HTML."""
    tokens = _parser().parse(markdown or "")
    out = []
    for i, tok in enumerate(tokens):
        if tok.type == "inline" and i and tokens[i - 1].type == "paragraph_open":
            out.append("".join(_text(child) for child in tok.children or []))
    return out


def _text(tok: Any) -> str:
    if tok.type in ("text", "code_inline"):
        return str(tok.content)
    if tok.type in ("softbreak", "hardbreak"):
        return "\n"
    return ""


@cache
def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").enable("strikethrough")


def uncited_sentences(markdown: str, citable: Collection[int] | None = None) -> list[str]:
    return [s for block in blocks(markdown) for s in uncited(block, citable)]


def uncited_count(markdown: str, citable: Collection[int] | None = None) -> int:
    """Claims without a citation in an answer's Markdown; with `citable`,
    a citation naming none of its numbers is no citation."""
    return len(uncited_sentences(markdown, citable))


_MAX_RANGE = 50  # as the SPA's parseCitationNumbers


def citation_numbers(citation: str) -> list[int]:
    """The numbers of one citation: "[1, 3-5]" is 1, 3, 4, 5; order kept, 0 and repeats dropped."""
    out: list[int] = []
    for part in citation.strip()[1:-1].split(","):
        ends = [int(x) for x in re.split(r"\s*[-\u2013]\s*", part.strip()) if x]
        if len(ends) == 2 and ends[0] <= ends[1] and ends[1] - ends[0] <= _MAX_RANGE:
            out.extend(range(ends[0], ends[1] + 1))
        else:
            out.extend(ends)
    return list(dict.fromkeys(n for n in out if n > 0))


def cited_numbers(markdown: str) -> list[int]:
    """Every citation number in an answer, in order of first use ("[2-4]" is 2, 3, 4)."""
    found = [n for m in CITATION.finditer(markdown or "") for n in citation_numbers(m.group(0))]
    return list(dict.fromkeys(found))


def citable(card_ids: Sequence[str]) -> frozenset[int]:
    """The numbers that name a card of a background citing `card_ids` ("" a
    withdrawn card): a card is known by its first number only, so no card
    ever shows under two."""
    first = {cid: n for n, cid in reversed(list(enumerate(card_ids, start=1))) if cid}
    return frozenset(first.values())


def citations(markdown: str, card_ids: Sequence[str]) -> list[int]:
    """The cards an answer cites, by number, each once, in order of first
    use; a number naming no card (0, beyond the background, withdrawn) is none."""
    names = citable(card_ids)
    return [n for n in cited_numbers(markdown) if n in names]
