"""Claims without a source in an answer (issue 16): one definition, shared
with the SPA through common/claims.json and tested on both sides with
common/claim_cases.json. The server counts them when an answer completes
(stored as ChatMessage.uncited_claims, logged per answer); the SPA marks the
same sentences in the rendered answer."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

_COMMON = Path(__file__).resolve().parent / "common" / "claims.json"
if not _COMMON.exists():  # running from the repository, not a deployed copy
    _COMMON = Path(__file__).resolve().parents[2] / "common" / "claims.json"
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


def sentences(block: str) -> list[Sentence]:
    """A block's sentences, each judged by the shared rule."""
    if block.lstrip().startswith(NOT_CLAIMS):
        return []
    out: list[Sentence] = []
    start = 0
    ends = [m.end() for m in SENTENCE_END.finditer(block)]
    for end in [*ends, len(block)]:
        text = block[start:end]
        if text.strip():
            lead = len(text) - len(text.lstrip())
            out.append(_judge(block, start + lead, start + len(text.rstrip())))
        start = end
    return out


def _judge(block: str, start: int, end: int) -> Sentence:
    text = block[start:end]
    words = sum(1 for w in text.split() if any(c.isalnum() for c in w))
    bare = CITATION.sub("", text).rstrip()
    claim = words >= MIN_WORDS and not bare.endswith((":", "?"))
    return Sentence(start, end, claim, CITATION.search(text) is not None)


def uncited(block: str) -> list[str]:
    return [block[s.start : s.end] for s in sentences(block) if s.claim and not s.cited]


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


def uncited_sentences(markdown: str) -> list[str]:
    return [s for block in blocks(markdown) for s in uncited(block)]


def uncited_count(markdown: str) -> int:
    """Claims without a citation in an answer's Markdown."""
    return len(uncited_sentences(markdown))


_MAX_RANGE = 50  # as the SPA's parseCitationNumbers


def cited_numbers(markdown: str) -> list[int]:
    """Every citation number in an answer, in order of first use ("[2-4]" is 2, 3, 4)."""
    out: list[int] = []
    for m in CITATION.finditer(markdown or ""):
        for part in m.group(0)[1:-1].split(","):
            ends = [int(x) for x in re.split(r"\s*[-\u2013]\s*", part.strip()) if x]
            if len(ends) == 2 and ends[0] <= ends[1] and ends[1] - ends[0] <= _MAX_RANGE:
                out.extend(range(ends[0], ends[1] + 1))
            else:
                out.extend(ends)
    return list(dict.fromkeys(n for n in out if n > 0))
