"""Every citation of a complete answer checked against the card it names
(docs/citations.md): for each claim (claims.py's rule, counted across the
answer in order) and each card number [n] it cites, a verdict
- `supported`: a passage of card n says it;
- `weak`: card n is on topic, but no passage says it;
- `unsupported`: card n is not about it.

Offline and cheap: the ranker's MiniLM vectors and a lexical check. A
passage says a claim when it holds nearly all of its content words, or
some of them and is very close in meaning; the vectors miss what a single word turns around, so a
number of the claim the passage lacks, a negation on one side only, or
names in another order each make the pair not supported. Only the
LEXICAL_CANDIDATES passages of a card that share most words with the claim
are embedded, and only where words alone cannot tell, at most MAX_EMBEDDED
texts an answer, so a long card or answer costs no more than a short one;
vectors stay cached per process (answers run concurrently: behind a lock).
No second opinion is asked of a keyed model.

The card text is the background the run sent (retrieval/background.py), so
checking reads nothing from the store."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cardchat.generation import claims
from cardchat.retrieval.claim_words import STOP, content_words, negated, numbers, share

#: Passages of a card, by lexical score, whose vectors are compared with the claim.
LEXICAL_CANDIDATES = 2
# The SAYS_ thresholds are fitted on the fit half of the labelled pairs in eval/citations/
# (`python -m cardchat eval-citations --fit`, docs/citations.md); the held-out half holds them.
#: A passage this close in meaning (cosine) and sharing SAYS_SHARE of the claim's words says it...
SAYS_COSINE = 0.85
SAYS_SHARE = 0.4
#: ...and one holding nearly every content word of the claim says it whatever the vectors make of it.
SAYS_SHARE_ALONE = 0.95
#: A card this close to the claim, or sharing this much of its words, is on topic.
TOPIC_COSINE = 0.35
TOPIC_SHARE = 0.34
#: Texts embedded for one answer at most: past it, pairs are decided by their words alone
#: (a claim the vectors would have found said is then `weak`), which bounds the time the checks add.
MAX_EMBEDDED = 48
#: Passage vectors kept per process.
CACHE_SIZE = 4096

Verdict = str  # "supported" | "weak" | "unsupported"
Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Check:
    sentence: int  # the claim's index across the answer
    n: int
    verdict: Verdict

    def to_dict(self) -> dict[str, object]:
        return {"sentence": self.sentence, "n": self.n, "verdict": self.verdict}


def cited_claims(markdown: str, citable: frozenset[int]) -> list[tuple[int, str, list[int]]]:
    """(claim index, its text without citations, the card numbers it cites) of each cited claim."""
    out: list[tuple[int, str, list[int]]] = []
    index = 0
    for block in claims.blocks(markdown):
        for s in claims.sentences(block, citable):
            if not s.claim:
                continue
            text = block[s.start : s.end]
            found = [n for m in claims.CITATION.finditer(text) for n in claims.citation_numbers(m.group(0))]
            cited = [n for n in dict.fromkeys(found) if n in citable]
            if cited:
                out.append((index, claims.CITATION.sub(" ", text).strip(), cited))
            index += 1
    return out


def passages(body: str) -> list[str]:
    """A card's Markdown as plain sentences (as the SPA's citation preview reads them: web/src/chat/passage.ts)."""
    text = re.sub(r"```.*?```", " ", body, flags=re.S)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"^\s{0,3}(#{1,6}|[-*+]|\d+[.)]|>)\s+", "", text, flags=re.M)
    text = re.sub(r"[*_`~]+", "", text)
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        flat = " ".join(para.split())
        out += [flat[s.start : s.end] for s in claims.sentences(flat)] if flat else []
    return out


def _names(text: str) -> list[str]:
    """Capitalised words but function words, in order: the names a sentence mentions."""
    return [w for w in re.findall(r"(?<![\w'-])[A-Z][\w'-]*", text) if w.lower() not in STOP]


def turned_around(claim: str, passage: str) -> bool:
    """What embeddings miss: a number the passage lacks, a negation on one side, names in another order."""
    if numbers(claim) - numbers(passage):
        return True
    if negated(claim) != negated(passage):
        return True
    held = [w for w in _names(passage) if w in set(_names(claim))]
    said = [w for w in _names(claim) if w in set(held)]
    return list(dict.fromkeys(said)) != list(dict.fromkeys(held))


class VectorCache:
    """Texts' unit vectors by text, least recently used dropped, safe across threads."""

    def __init__(self, embed: Embed, size: int = CACHE_SIZE) -> None:
        self._embed = embed
        self._size = size
        self._lock = threading.Lock()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def get(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        with self._lock:
            found = {t: self._vectors[t] for t in texts if t in self._vectors}
            for t in found:
                self._vectors.move_to_end(t)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:  # embedded outside the lock: another answer's checks need not wait for it
            made = dict(zip(missing, self._embed(missing)))
            with self._lock:
                for t, v in made.items():
                    self._vectors[t] = v
                while len(self._vectors) > self._size:
                    self._vectors.popitem(last=False)
            found.update(made)
        return found

    def put(self, vectors: dict[str, np.ndarray]) -> None:
        """Vectors made elsewhere by the same model (a draft's claims, embedded to rank)."""
        with self._lock:
            self._vectors.update(vectors)
            for t in vectors:
                self._vectors.move_to_end(t)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)


@dataclass(frozen=True)
class _Plan:
    """What words decide of one (claim, card) pair, and which passages need vectors to finish it."""

    claim: str
    decided: Verdict | None = None
    says: tuple[str, ...] = ()  # passages holding enough of the claim's words, if close enough in meaning
    on_topic: bool = False  # the card shares enough of the claim's words to be on topic
    candidates: tuple[str, ...] = ()  # the passages sharing most words, for the topic's vectors

    def texts(self) -> list[str]:
        if self.decided:
            return []
        return [self.claim, *self.says, *(() if self.on_topic else self.candidates)]

    def decide(self, vecs: dict[str, np.ndarray]) -> Verdict:
        if self.decided:
            return self.decided
        if any(t not in vecs for t in self.texts()):  # past MAX_EMBEDDED: what the words say
            return "weak" if self.on_topic or self.says else "unsupported"
        if self.says and max(float(vecs[self.claim] @ vecs[p]) for p in self.says) >= SAYS_COSINE:
            return "supported"
        if self.on_topic:
            return "weak"
        near = max(float(vecs[self.claim] @ vecs[p]) for p in self.candidates)
        return "weak" if near >= TOPIC_COSINE else "unsupported"


def _plan(claim: str, card: Sequence[str]) -> _Plan:
    wanted = content_words(claim)
    scored = sorted(((share(wanted, content_words(p)), p) for p in card), key=lambda x: -x[0])
    candidates = scored[:LEXICAL_CANDIDATES]
    if not candidates:
        return _Plan(claim, "unsupported")
    says = [(lex, p) for lex, p in candidates if lex >= SAYS_SHARE and not turned_around(claim, p)]
    if any(lex >= SAYS_SHARE_ALONE for lex, _ in says):
        return _Plan(claim, "supported")
    on_topic = share(wanted, set().union(*(content_words(p) for p in card))) >= TOPIC_SHARE
    if on_topic and not says:
        return _Plan(claim, "weak")
    return _Plan(claim, None, tuple(p for _, p in says), on_topic, tuple(p for _, p in candidates))


def verdict(claim: str, card: Sequence[str], vectors: VectorCache) -> Verdict:
    """The verdict of one claim against one card's passages; vectors only where words cannot tell."""
    plan = _plan(claim, card)
    return plan.decide(vectors.get(plan.texts()))


def check(markdown: str, cards: dict[int, str], citable: frozenset[int], vectors: VectorCache) -> list[Check]:
    """Every (claim, [n]) of an answer judged against card n's text (`cards`: number → title and body);
    a number whose card text the run does not hold is not judged. The vectors every pair needs are
    asked for at once: one model run per batch, not one per pair."""
    split: dict[int, list[str]] = {}
    pairs: list[tuple[int, int, str]] = []
    for index, text, cited in cited_claims(markdown, citable):
        for n in cited:
            if n not in cards:
                continue
            if n not in split:
                split[n] = passages(cards[n])
            pairs.append((index, n, text))
    found = verdicts([(text, split[n]) for _, n, text in pairs], vectors)
    return [Check(index, n, v) for (index, n, _), v in zip(pairs, found, strict=True)]


def verdicts(
    pairs: Sequence[tuple[str, Sequence[str]]], vectors: VectorCache, budget: int | None = None
) -> list[Verdict]:
    """The verdict of each (claim, card's passages) pair. The vectors every pair needs are asked for
    at once (one model run per batch, not one per pair), at most `budget` texts (MAX_EMBEDDED by
    default): the pairs past it are decided by their words alone."""
    budget = MAX_EMBEDDED if budget is None else budget
    plans = [_plan(claim, card) for claim, card in pairs]
    wanted: dict[str, None] = {}
    for plan in plans:
        more = [t for t in plan.texts() if t not in wanted]
        if len(wanted) + len(more) <= budget:
            wanted.update(dict.fromkeys(more))
    vecs = vectors.get(list(wanted))
    return [plan.decide(vecs) for plan in plans]


def nearest_passage(claim: str, card: Sequence[str]) -> str | None:
    """The passage of a card holding most of the claim's content words (the first of equals): the
    one to show beside a verdict. None for a card without passages."""
    wanted = content_words(claim)
    return max(card, key=lambda p: share(wanted, content_words(p)), default=None)


_shared: VectorCache | None = None
_shared_lock = threading.Lock()


def shared_vectors() -> VectorCache:
    """The process's passage vectors, by the ranker's offline embedder (MiniLM), loaded on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            from cardchat.embeddings import get_embedder

            _shared = VectorCache(get_embedder("minilm").embed)
        return _shared
