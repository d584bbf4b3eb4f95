"""The offline answerer: no model, no key, no network.

It says plainly that it is not a language model, then quotes the sentences of
the chat's cards most similar to the question, each with its citation [n].
Everything it writes is the user's own card text, so it cannot invent facts;
it streams word by word so the app behaves as it does with a real model.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardchat.providers.base import Message, ProviderError
from cardchat.schema import Usage

if TYPE_CHECKING:
    from cardchat.llms import ModelSpec

HEADER = (
    "*Offline extractive answer (no model key is configured): the sentences from your cards "
    "most similar to your question, quoted as written, with their card numbers.*"
)
NO_CARDS = "There are no cards in this chat's background to quote from."
NOTHING_RELATED = "No sentence in this chat's cards looks related to the question."
PACE_ENV = "CARDCHAT_OFFLINE_PACE_MS"
DEFAULT_PACE_MS = 30.0

MAX_SENTENCES = 6
PER_CARD = 3
#: MiniLM cosine below which a sentence is unrelated to the question (measured:
#: unrelated pairs score about -0.05..0.12, related ones 0.3..0.8) and the
#: share of the best score a sentence must reach, so a strong match is not
#: padded out with weak ones.
MIN_SCORE = 0.15
MIN_SHARE = 0.4
#: Sentences embedded per answer, best-ranked cards first: bounds the time on
#: a large background (the offline model's window is small anyway).
MAX_CANDIDATES = 1_500
MIN_WORDS = 4
MAX_CHARS = 400
#: Cosine above which two sentences say the same thing.
DUPLICATE = 0.95

_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]*[A-Z0-9])")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|#{1,6})\s+")
_INLINE = re.compile(r"[*_`]{1,3}")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


@dataclass
class Sentence:
    card: int  # citation number
    position: int  # order within its card
    text: str


class OfflineProvider:
    def stream(self, spec: ModelSpec, messages: list[Message], system: str, max_tokens: int) -> Iterator[str | Usage]:
        from cardchat.tokens import count_tokens, truncate_tokens

        question = messages[-1]["content"]
        answer = compose(question, sentences_of(system))
        answer = truncate_tokens(answer, max_tokens, spec.tokenizer).rstrip()
        pace = _pace_seconds()
        for i, word in enumerate(re.findall(r"\s*\S+", answer)):
            if pace and i:
                time.sleep(pace)
            yield word
        counts = count_tokens([system, *(m["content"] for m in messages), answer], spec.tokenizer)
        yield Usage(input_tokens=sum(counts[:-1]), output_tokens=counts[-1])


def sentences_of(background: str) -> list[Sentence]:
    """The background's card bodies as quotable sentences, in card order."""
    if not background.strip():
        return []
    from cardchat.background import parse_background

    try:
        cards = parse_background(background)
    except ValueError:
        raise ProviderError(
            "bad_request", provider="offline", detail="the chat's background is not in the expected format"
        ) from None
    out: list[Sentence] = []
    for n, _title, body in cards:
        for position, text in enumerate(split_sentences(body)):
            out.append(Sentence(n, position, text))
            if len(out) >= MAX_CANDIDATES:
                return out
    return out


def split_sentences(markdown: str) -> list[str]:
    """Prose sentences of a Markdown body: list items and headings count as
    lines of their own, code blocks and tables are skipped."""
    out: list[str] = []
    paragraph: list[str] = []
    in_code = False

    def flush() -> None:
        if paragraph:
            for piece in _SPLIT.split(" ".join(paragraph)):
                piece = " ".join(piece.split())
                if len(piece.split()) >= MIN_WORDS:
                    out.append(piece if len(piece) <= MAX_CHARS else piece[: MAX_CHARS - 1].rstrip() + "…")
            paragraph.clear()

    for raw in markdown.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            flush()
            in_code = not in_code
            continue
        if in_code:
            continue
        if not line or line.startswith("|"):
            flush()
            continue
        heading = line.startswith("#")
        if heading or _LIST_MARK.match(line):
            flush()
            line = _LIST_MARK.sub("", line)
        paragraph.append(_INLINE.sub("", _LINK.sub(r"\1", line)))
        if heading:  # a heading is a line of its own, never the start of a sentence
            flush()
    flush()
    return out


def select(question: str, sentences: list[Sentence]) -> list[Sentence]:
    """The sentences most similar to the question: at most MAX_SENTENCES,
    PER_CARD per card, no near-duplicates; grouped by card (best card first)
    and in reading order within a card."""
    if not sentences or not question.strip():
        return []
    from cardchat.embeddings import get_embedder

    try:
        vectors = get_embedder().embed([question] + [s.text for s in sentences])
    except Exception as e:  # a missing model asset or an embedding API failure
        raise ProviderError(
            "provider", provider="offline", detail=f"embeddings are unavailable ({type(e).__name__})"
        ) from None
    scores = vectors[1:] @ vectors[0]
    floor = max(MIN_SCORE, MIN_SHARE * float(scores.max()))
    chosen: list[int] = []
    per_card: dict[int, int] = {}
    seen_text: set[str] = set()
    for i in scores.argsort()[::-1]:
        if float(scores[i]) < floor:
            break
        s = sentences[int(i)]
        key = s.text.lower()
        if per_card.get(s.card, 0) >= PER_CARD or key in seen_text:
            continue
        if any(float(vectors[1 + int(i)] @ vectors[1 + j]) > DUPLICATE for j in chosen):
            continue
        chosen.append(int(i))
        seen_text.add(key)
        per_card[s.card] = per_card.get(s.card, 0) + 1
        if len(chosen) == MAX_SENTENCES:
            break
    card_rank: dict[int, int] = {}
    for i in chosen:  # chosen is best-first: a card ranks by its best sentence
        card_rank.setdefault(sentences[i].card, len(card_rank))
    chosen.sort(key=lambda i: (card_rank[sentences[i].card], sentences[i].position))
    return [sentences[i] for i in chosen]


def compose(question: str, sentences: list[Sentence]) -> str:
    if not sentences:
        return f"{HEADER}\n\n{NO_CARDS}"
    picked = select(question, sentences)
    if not picked:
        return f"{HEADER}\n\n{NOTHING_RELATED}"
    lines = [f"- {s.text} [{s.card}]" for s in picked]
    return HEADER + "\n\n" + "\n".join(lines)


def _pace_seconds() -> float:
    try:
        ms = float(os.environ.get(PACE_ENV, DEFAULT_PACE_MS))
    except ValueError:
        ms = DEFAULT_PACE_MS
    return max(ms, 0.0) / 1000
