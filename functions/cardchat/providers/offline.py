"""The offline answerer: no model, no key, no network.

It quotes the sentences of the chat's cards most similar to the question,
each with its citation [n], and ends by saying plainly that it is not a
language model. Everything it writes is the user's own card text, so it
cannot invent facts; it streams word by word so the app behaves as it does
with a real model.

Speed: embedding every sentence of a large background took seconds per
answer. So BM25 over the sentences (plus the opening
sentences of the best-ranked cards, for paraphrases BM25 misses) picks a
few dozen candidates, only those are embedded, and their vectors are kept
per sentence text, so a follow-up on the same background embeds little
more than the question. The first chunk is the answer's own first words:
the note about what this is comes last.

When no sentence clears COVER_SCORE it quotes nothing: it says that the
cards don't seem to cover the question (declining.DECLINED) and names the
nearest cards by number, so a reader sees their titles only where the
citation layer lets them (the SPA's sources list and previews), never in
the text. A question posted by "Ask anyway" (declining.ANYWAY) quotes the
nearest sentences however weak.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cardchat.providers import declining
from cardchat.providers.base import Message, ProviderError
from cardchat.schema.messages import Usage

if TYPE_CHECKING:
    from cardchat.llm.models import ModelSpec
    from cardchat.providers.tools import Search
    from cardchat.retrieval.bm25 import Bm25

NOTE = (
    "*Offline extractive answer (no model key is configured): the sentences from your cards "
    "most similar to your question, quoted as written, with their card numbers.*"
)
NO_CARDS = "There are no cards in this chat's background to quote from."
#: What an answer said before it declined (declining.DECLINED): still no claim in answers stored then.
NOTHING_RELATED = "No sentence in this chat's cards looks related to the question."
NOTE_DECLINED = (
    "*Offline extractive answer (no model key is configured): no sentence of the chat's cards "
    "is similar enough to your question to quote.*"
)
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
#: The best sentence must reach this for the answer to quote anything: below
#: it the cards don't seem to cover the question (docs/coverage.md: how it
#: was chosen on the labelled questions of eval/answers/).
COVER_SCORE = 0.40
#: Cards named as the nearest when the answer quotes nothing.
NEAREST_CARDS = 3
#: Sentences parsed per answer, best-ranked cards first (bounds BM25 work).
MAX_CANDIDATES = 1_500
#: Sentences embedded per answer: the BM25 best, the opening sentences of
#: the best-ranked cards (the background is in rank order), then the
#: following sentences in background order, up to MAX_EMBEDDED in all.
BM25_CANDIDATES = 32
MAX_EMBEDDED = 48
#: Candidates embedded before the first sentence is written.
FIRST_BATCH = 12
LEAD_CARDS = 8
LEAD_SENTENCES = 2
#: Sentence vectors kept per process (384 float32s each: 15 MB in all).
MAX_CACHED_VECTORS = 10_000
MIN_WORDS = 4
MAX_CHARS = 400
#: Cosine above which two sentences say the same thing.
DUPLICATE = 0.95

_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]*[A-Z0-9])")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|#{1,6})\s+")
#: What is streamed at a time: a word with the space before it; a list
#: marker goes with its first word, so the first chunk is never a bare "-".
_WORD = re.compile(r"\s*(?:- )?\S+")
_INLINE = re.compile(r"[*_`]{1,3}")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


@dataclass
class Sentence:
    card: int  # citation number
    position: int  # order within its card
    text: str


class OfflineProvider:
    def stream(
        self, spec: ModelSpec, messages: list[Message], system: str, max_tokens: int, search: Search | None = None
    ) -> Iterator[str | Usage]:
        """The extractive answer; it takes no tools, so `search` is never called."""
        from cardchat.llm.tokens import count_tokens, truncate_tokens

        question = messages[-1]["content"]
        pace = _pace_seconds()
        written, answer = "", ""
        for piece in pieces(question, sentences_of(system)):
            whole = truncate_tokens(written + piece, max_tokens, spec.tokenizer)
            if not whole.startswith(written):
                break  # the cap fell inside what was already streamed
            capped = len(whole) < len(written) + len(piece)
            for word in _WORD.findall(whole[len(written) :]):
                if pace and answer:
                    time.sleep(pace)
                answer += word
                yield word
            written = whole
            if capped:
                break
        counts = count_tokens([system, *(m["content"] for m in messages), answer], spec.tokenizer)
        yield Usage(input_tokens=sum(counts[:-1]), output_tokens=counts[-1])


def sentences_of(background: str) -> list[Sentence]:
    """The background's card bodies as quotable sentences, in card order."""
    if not background.strip():
        return []
    from cardchat.retrieval.background import parse_background

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


def candidates(question: str, sentences: list[Sentence]) -> list[int]:
    """Indices of the sentences worth embedding, most promising first: the
    FIRST_BATCH head holds the BM25 best and the opening sentences of the
    best-ranked cards; the rest follow, at most MAX_EMBEDDED."""
    bm25 = _sentence_bm25()
    keys = [_key(s.text) for s in sentences]
    with _LOCK:  # the index and its caches are shared by concurrent answers
        index = bm25.index(keys, keys, ["\n" + s.text for s in sentences])
        scores = bm25.scores(question, index)
    by_bm25 = [int(i) for i in np.argsort(-scores, kind="stable")[:BM25_CANDIDATES] if scores[i] > 0]
    leads: list[int] = []
    lead_cards: list[int] = []
    for i, s in enumerate(sentences):
        if s.card not in lead_cards:
            if len(lead_cards) == LEAD_CARDS:
                break
            lead_cards.append(s.card)
        if s.position < LEAD_SENTENCES:
            leads.append(i)
    half = FIRST_BATCH // 2
    lead_head = [i for i in leads if sentences[i].position == 0][:half]
    ordered = by_bm25[:half] + lead_head + by_bm25[half:] + leads + list(range(min(len(sentences), MAX_EMBEDDED)))
    return list(dict.fromkeys(ordered))[:MAX_EMBEDDED]


def select(question: str, sentences: list[Sentence], among: list[int] | None = None) -> list[Sentence]:
    """The quoted sentences, in the order they are written."""
    return list(selected(question, sentences, among))


def selected(
    question: str,
    sentences: list[Sentence],
    among: list[int] | None = None,
    cover: float = COVER_SCORE,
    nearest: list[int] | None = None,
) -> Iterator[Sentence]:
    """The sentences most similar to the question: at most MAX_SENTENCES,
    PER_CARD per card, no near-duplicates, none at all unless the best
    reaches `cover` (then `nearest` gets the nearest cards' numbers). The
    best comes first, as soon as the FIRST_BATCH head of the candidates is
    embedded; the others follow grouped by card (best card first), in
    reading order within a card. `among` (default: the candidates) are the
    indices compared, all at once; the benchmark passes every sentence as
    its reference."""
    if not sentences or not question.strip():
        return
    pool = [sentences[i] for i in (candidates(question, sentences) if among is None else among)]
    if not pool:
        return
    head = min(FIRST_BATCH, len(pool)) if among is None else len(pool)
    vectors = _vectors([question] + [s.text for s in pool[:head]])
    first: list[int] = []
    if head < len(pool):
        best = int((vectors[1:] @ vectors[0]).argmax())
        if float(vectors[1 + best] @ vectors[0]) >= max(cover, MIN_SCORE):
            first = [best]
            yield pool[best]  # the rest are embedded while this one is written
        vectors = np.concatenate([vectors, _vectors([s.text for s in pool[head:]])])
    chosen = _choose(pool, vectors, first, cover)
    if not chosen:
        if nearest is not None:
            nearest.extend(_nearest(pool, vectors))
        return
    card_rank: dict[int, int] = {}
    for i in chosen:  # chosen is best-first: a card ranks by its best sentence
        card_rank.setdefault(pool[i].card, len(card_rank))
    rest = sorted(chosen[1:], key=lambda i: (card_rank[pool[i].card], pool[i].position))
    for i in rest if first else [chosen[0], *rest]:
        yield pool[i]


def _choose(pool: list[Sentence], vectors: np.ndarray, chosen: list[int], cover: float) -> list[int]:
    """Best-first indices into `pool` (row i + 1 of `vectors`; row 0 is the
    question), extending `chosen`, which was already written; none when the
    best is below `cover`."""
    scores = vectors[1:] @ vectors[0]
    if not chosen and float(scores.max()) < cover:
        return []
    floor = max(MIN_SCORE, MIN_SHARE * float(scores.max()))
    chosen = list(chosen)
    per_card: dict[int, int] = {}
    seen_text: set[str] = set()
    for i in chosen:
        per_card[pool[i].card] = per_card.get(pool[i].card, 0) + 1
        seen_text.add(pool[i].text.lower())
    for i in scores.argsort(kind="stable")[::-1]:
        if len(chosen) >= MAX_SENTENCES or float(scores[i]) < floor:
            break
        s = pool[int(i)]
        key = s.text.lower()
        if per_card.get(s.card, 0) >= PER_CARD or key in seen_text:
            continue
        if any(float(vectors[1 + int(i)] @ vectors[1 + j]) > DUPLICATE for j in chosen):
            continue
        chosen.append(int(i))
        seen_text.add(key)
        per_card[s.card] = per_card.get(s.card, 0) + 1
    return chosen


def _nearest(pool: list[Sentence], vectors: np.ndarray) -> list[int]:
    """The numbers of the NEAREST_CARDS cards with the sentences most similar to the question."""
    scores = vectors[1:] @ vectors[0]
    cards = dict.fromkeys(pool[int(i)].card for i in scores.argsort(kind="stable")[::-1])
    return list(cards)[:NEAREST_CARDS]


def declined(nearest: list[int]) -> str:
    """What the answer says when the cards don't seem to cover the question."""
    if not nearest:
        return declining.DECLINED
    names = [f"[{n}]" for n in nearest]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{declining.DECLINED} The nearest cards are {listed}."


def pieces(question: str, sentences: list[Sentence], among: list[int] | None = None) -> Iterator[str]:
    """The answer as it is written: its own words first (one line per quoted
    sentence), the note on what it is last."""
    if not sentences:
        yield NO_CARDS
        yield "\n\n" + NOTE
        return
    anyway = question.strip().startswith(declining.ANYWAY)
    nearest: list[int] = []
    n = 0
    cover = MIN_SCORE if anyway else COVER_SCORE
    for n, s in enumerate(selected(declining.question_of(question), sentences, among, cover, nearest), start=1):
        yield ("\n" if n > 1 else "") + f"- {s.text} [{s.card}]"
    if not n:
        yield declined(nearest)
        yield "\n\n" + NOTE_DECLINED
        return
    yield "\n\n" + NOTE


def compose(question: str, sentences: list[Sentence]) -> str:
    return "".join(pieces(question, sentences))


_LOCK = threading.Lock()
_BM25: Bm25 | None = None
_VECTORS: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _sentence_bm25() -> Bm25:
    global _BM25
    with _LOCK:
        if _BM25 is None:
            from cardchat.retrieval.bm25 import Bm25

            _BM25 = Bm25(title_weight=0.0)  # its own vocabulary and cache: sentences, not cards
        return _BM25


def _vectors(texts: list[str]) -> np.ndarray:
    """Unit vectors of `texts`, each embedded once per process and model
    (a follow-up on the same background reuses the sentences' vectors)."""
    from cardchat.embeddings import get_embedder

    try:
        embedder = get_embedder()
        keys = [(embedder.model_id, _key(t)) for t in texts]
        with _LOCK:
            known = {k: _VECTORS[k] for k in keys if k in _VECTORS}
            for k in known:
                _VECTORS.move_to_end(k)
        missing = list(dict.fromkeys(k for k in keys if k not in known))
        if missing:
            text_of = dict(zip(keys, texts))
            fresh = embedder.embed([text_of[k] for k in missing])
            known.update(zip(missing, fresh))
            with _LOCK:
                _VECTORS.update(zip(missing, fresh))
                while len(_VECTORS) > MAX_CACHED_VECTORS:
                    _VECTORS.popitem(last=False)
    except Exception as e:  # a missing model asset or an embedding API failure
        raise ProviderError(
            "provider", provider="offline", detail=f"embeddings are unavailable ({type(e).__name__})"
        ) from None
    return np.stack([known[k] for k in keys])


def _pace_seconds() -> float:
    try:
        ms = float(os.environ.get(PACE_ENV, DEFAULT_PACE_MS))
    except ValueError:
        ms = DEFAULT_PACE_MS
    return max(ms, 0.0) / 1000
