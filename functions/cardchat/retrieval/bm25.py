"""BM25 over cards, tokenised for both code and prose.

Card texts are `text.embeddable_text` output: the first line is the title,
whose terms count `title_weight` times (3: measured on git-demo's tuning
half, 2 → 3 lifts BM25 and hybrid recall@5, see eval/README.md). Tokenising is the slow part (pure
Python), so each card's term statistics are cached per process by
(card_id, text_hash) and scoring is numpy over flat (doc, term, tf) arrays:
at query time there is no Python loop over documents.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cardchat.embeddings.scripts import fold, has_cjk, split_cjk
from cardchat.retrieval import function_words

# Light: only words that carry no topic in a question: English, Dutch/German (the compound set)
# and French (the French set) function words.
STOPWORDS = function_words.ENGLISH | function_words.DUTCH_GERMAN | function_words.FRENCH

# Spans are the runs between whitespace and these: str.translate + split
# find them at twice the speed of a regex (tokenising is the cold path).
_SEPARATORS = str.maketrans(dict.fromkeys(",;()[]\"'`<>!?=|*&", " "))
_EDGE = ".:/\\"
_PARTS = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

K1 = 1.2
B = 0.75
MIN_COMPOUND = 6


def spans(text: str) -> list[str]:
    """The runs of text between whitespace and separator punctuation."""
    return text.translate(_SEPARATORS).split()


def tokenize(text: str) -> list[str]:
    """Lowercase terms. A compound token (`--onto`, `HEAD~3`, `core.autocrlf`,
    `NullPointerException`) yields itself and its parts, so both an exact
    and a partial query match it."""
    out: list[str] = []
    for span in spans(text):
        out.extend(expand(span))
    return out


def expand(span: str) -> list[str]:
    """The terms of one whitespace/punctuation-delimited span (accents folded; Chinese and
    Japanese as character bigrams: embeddings/scripts.py)."""
    span = fold(span)
    if has_cjk(span):
        terms, rest = split_cjk(span)
        return terms + [t for part in rest for t in _expand_word(part)]
    return _expand_word(span)


def _expand_word(span: str) -> list[str]:
    span = span.strip(_EDGE)
    parts = _PARTS.findall(span)
    if not parts:
        return []
    split = [_CAMEL.findall(p) if p.isascii() else [p] for p in parts]
    if len(parts) == 1 and parts[0] == span and len(split[0]) <= 1:
        word = span.lower()
        return [word] if word not in STOPWORDS and (len(word) > 1 or word.isdigit()) else []
    out = [span.lower()]
    for part, pieces in zip(parts, split):
        if len(pieces) > 1 and part != span:
            out.append(part.lower())
        for piece in pieces:
            piece = piece.lower()
            if piece not in STOPWORDS and (len(piece) > 1 or piece.isdigit()):
                out.append(piece)
    return out


class Vocabulary:
    """Process-wide term ids, so cached documents share one id space."""

    MAX_MEMO = 500_000

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.terms: list[str] = []
        self._lock = threading.Lock()
        self._spans: dict[str, tuple[int, ...]] = {}  # span -> its term ids (words repeat a lot)
        self._related: dict[str, tuple[int, list[int]]] = {}
        self._blob: tuple[int, str, np.ndarray] | None = None

    def id(self, term: str) -> int:
        tid = self.ids.get(term)
        if tid is None:
            # An instance may serve requests concurrently: two threads must
            # never hand out one id to two terms.
            with self._lock:
                tid = self.ids.get(term)
                if tid is None:
                    tid = self.ids[term] = len(self.terms)
                    self.terms.append(term)
        return tid

    def span_ids(self, span: str) -> tuple[int, ...]:
        ids = self._spans.get(span)
        if ids is None:
            if len(self._spans) >= self.MAX_MEMO:
                self._spans.clear()
            ids = self._spans[span] = tuple(self.id(t) for t in expand(span))
        return ids

    def _all_terms(self) -> tuple[str, np.ndarray]:
        """Every term in one newline-separated string, and where each starts:
        substring search then runs in C instead of a Python loop per term."""
        if self._blob is None or self._blob[0] != len(self.terms):
            blob = "\n" + "\n".join(self.terms) + "\n"
            lengths = np.fromiter((len(t) + 1 for t in self.terms), dtype=np.int64, count=len(self.terms))
            starts = np.concatenate([[1], 1 + np.cumsum(lengths)[:-1]]) if len(self.terms) else np.zeros(0, np.int64)
            self._blob = (len(self.terms), blob, starts)
        return self._blob[1], self._blob[2]

    def related(self, term: str) -> list[int]:
        """Ids of terms that are compound-related to `term`: one contains the
        other (the contained one ≥ MIN_COMPOUND chars) or they share a
        MIN_COMPOUND-char stem."""
        cached = self._related.get(term)
        if cached is not None and cached[0] == len(self.terms):
            return cached[1]
        blob, starts = self._all_terms()
        positions = [m.start() for m in re.finditer(re.escape(term), blob)]
        positions += [m.start() + 1 for m in re.finditer(re.escape("\n" + term[:MIN_COMPOUND]), blob)]
        found = (
            set(np.searchsorted(starts, np.asarray(positions, dtype=np.int64), side="right") - 1)
            if positions
            else set()
        )
        for size in range(MIN_COMPOUND, len(term)):
            for i in range(len(term) - size + 1):
                tid = self.ids.get(term[i : i + size])
                if tid is not None:
                    found.add(tid)
        found.discard(self.ids.get(term, -1))
        result = sorted(int(t) for t in found)
        self._related[term] = (len(self.terms), result)
        return result


@dataclass
class DocTerms:
    term_ids: np.ndarray  # int32, unique
    tf: np.ndarray  # float32, title occurrences weighted
    length: float


@dataclass
class Index:
    """Flat postings of an ordered set of documents."""

    doc: np.ndarray  # int32, position of the document in the set
    term: np.ndarray  # int32
    tf: np.ndarray  # float32
    lengths: np.ndarray  # float32, per document
    avg_length: float


class Bm25:
    def __init__(self, title_weight: float = 3.0, max_cached: int = 200_000) -> None:
        self.title_weight = title_weight
        self.vocab = Vocabulary()
        self._docs: dict[tuple[str, str], DocTerms] = {}
        self._max_cached = max_cached
        self._last: tuple[list[str], list[str], Index] | None = None

    def doc_terms(self, key: tuple[str, str], text: str, remember: bool = True) -> DocTerms:
        """The document's term ids and title-weighted frequencies, cached by `key` unless
        `remember` is False (a caller that keeps them itself)."""
        cached = self._docs.get(key)
        if cached is not None:
            return cached
        title, _, body = text.partition("\n")
        counts: dict[int, float] = {}
        memo, span_ids = self.vocab._spans, self.vocab.span_ids
        for span, n in Counter(spans(body)).items():
            known = memo.get(span)
            for tid in span_ids(span) if known is None else known:
                counts[tid] = counts.get(tid, 0) + n
        for span in spans(title):
            for tid in span_ids(span):
                counts[tid] = counts.get(tid, 0) + self.title_weight
        ids = np.fromiter(counts.keys(), dtype=np.int32, count=len(counts))
        tf = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
        doc = DocTerms(ids, tf, float(tf.sum()))
        if not remember:
            return doc
        if len(self._docs) >= self._max_cached:
            self._docs.clear()  # rare: far more distinct cards than any chat uses
        self._docs[key] = doc
        return doc

    def index(self, card_ids: Sequence[str], text_hashes: Sequence[str], texts: Sequence[str]) -> Index:
        """The postings of these documents in this order; the last one is
        kept, since consecutive chats usually rank the same card set."""
        card_ids, text_hashes = list(card_ids), list(text_hashes)
        if self._last is not None and self._last[0] == card_ids and self._last[1] == text_hashes:
            return self._last[2]
        keys = list(zip(card_ids, text_hashes))
        docs = [self.doc_terms(k, t) for k, t in zip(keys, texts)]
        sizes = np.fromiter((len(d.term_ids) for d in docs), dtype=np.int64, count=len(docs))
        lengths = np.fromiter((d.length for d in docs), dtype=np.float32, count=len(docs))
        empty_i, empty_f = np.zeros(0, np.int32), np.zeros(0, np.float32)
        index = Index(
            doc=np.repeat(np.arange(len(docs), dtype=np.int32), sizes),
            term=np.concatenate([d.term_ids for d in docs]) if docs else empty_i,
            tf=np.concatenate([d.tf for d in docs]) if docs else empty_f,
            lengths=lengths,
            avg_length=float(lengths.mean()) if len(docs) and lengths.mean() > 0 else 1.0,
        )
        self._last = (card_ids, text_hashes, index)
        return index

    def _term_scores(self, index: Index, term_ids: Sequence[int]) -> tuple[np.ndarray, float]:
        """Best BM25 contribution per document over `term_ids` (each with its
        own idf), in one pass over the postings however many terms, and the
        most any document could get from them ((K1 + 1) x the largest idf
        that matched: the tf part saturates below K1 + 1)."""
        n = len(index.lengths)
        out = np.zeros(n, np.float32)
        if not len(term_ids) or not n:
            return out, 0.0
        if len(term_ids) == 1:
            hits = np.flatnonzero(index.term == term_ids[0])
        else:
            # A lookup table instead of np.isin: one gather, however many terms.
            mark = np.zeros(len(self.vocab.terms), bool)
            mark[np.asarray(term_ids, dtype=np.int64)] = True
            hits = np.flatnonzero(mark[index.term])
        if not len(hits):
            return out, 0.0
        docs = index.doc[hits]
        tf = index.tf[hits]
        _, inverse, df = np.unique(index.term[hits], return_inverse=True, return_counts=True)
        idfs = np.log1p((n - df + 0.5) / (df + 0.5))
        idf = idfs[inverse]
        norm = K1 * (1.0 - B + B * index.lengths[docs] / index.avg_length)
        np.maximum.at(out, docs, (idf * tf * (K1 + 1.0) / (tf + norm)).astype(np.float32))
        return out, float(idfs.max()) * (K1 + 1.0)

    def scores(self, query: str, index: Index, compound_weight: float = 0.4) -> np.ndarray:
        """BM25 score per document. With compound_weight > 0, a query term of
        ≥ MIN_COMPOUND chars that a document lacks still scores there, at that
        fraction, through the document's compound-related terms
        ("pensioen" → "partnerpensioen", "Versicherung" → "Krankenversicherung")."""
        return self.scores_and_bound(query, index, compound_weight)[0]

    def scores_and_bound(self, query: str, index: Index, compound_weight: float = 0.4) -> tuple[np.ndarray, float]:
        """`scores`, and the most a document of this index could score for
        `query`: the sum over its terms of their largest possible
        contribution. Dividing by it puts a score on an absolute [0, 1]
        scale (1: every query term, at saturation), which says how well a
        card matches rather than only how it compares with the best match
        (see fusion.bounded_fusion)."""
        total = np.zeros(len(index.lengths), np.float32)
        bound = 0.0
        for term, count in Counter(tokenize(query)).items():
            tid = self.vocab.ids.get(term)
            exact, most = self._term_scores(index, [tid]) if tid is not None else (np.zeros_like(total), 0.0)
            if compound_weight > 0 and len(term) >= MIN_COMPOUND and term.isalpha():
                related, most_related = self._term_scores(index, self.vocab.related(term))
                exact = np.where(exact > 0, exact, compound_weight * related)
                most = max(most, compound_weight * most_related)
            total += count * exact
            bound += count * most
        return total, bound


_DEFAULT: Bm25 | None = None
_DEFAULT_LOCK = threading.Lock()


def default_bm25() -> Bm25:
    """The per-process instance whose cache serves every call (answers run side by side in one
    instance: the first two to ask must not each make one)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Bm25()
        return _DEFAULT
