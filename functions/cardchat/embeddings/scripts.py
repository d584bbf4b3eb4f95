"""Text not written like English: accents folded, Chinese and Japanese found and split.

BM25 matches whole terms, so two things make it miss on such text:
- an accent typed on one side only (`répertoire` in the card, `repertoire` in the question):
  Latin letters are folded to their base letter, in cards and queries alike;
- Chinese and Japanese write no spaces, so a whole clause is one "word" that a question never
  repeats exactly: a run of CJK characters becomes its overlapping character bigrams (a lone
  character stays a unigram), the usual segmentation-free approach, which needs no dictionary.

Both apply to cards and queries through `retrieval.bm25.expand`, so the stored index and the
query agree; changing them changes every card's terms (TERMS_VERSION, which the retrieval index
records). The offline embedder reads `mostly_cjk` to know a question it cannot read.
"""

from __future__ import annotations

import re
import unicodedata

#: Bumped whenever a card's terms change for the same text: an index built with other terms is rebuilt.
TERMS_VERSION = 2

# Hiragana, katakana (and its phonetic extensions and half-width forms), CJK ideographs
# (unified, extension A, compatibility) and Hangul syllables.
_CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af]+")


def _latin_folds() -> dict[int, str]:
    """Latin letters with a diacritic → their base letters (é → e, Ł stays: it has no decomposition)."""
    table: dict[int, str] = {}
    for start, end in ((0x00C0, 0x024F), (0x1E00, 0x1EFF)):
        for cp in range(start, end + 1):
            base = "".join(c for c in unicodedata.normalize("NFKD", chr(cp)) if not unicodedata.combining(c))
            if base and base != chr(cp):
                table[cp] = base
    return table


_FOLDS = _latin_folds()


def fold(span: str) -> str:
    """Compatibility forms unified (full-width Ａ → A) and Latin accents dropped; ASCII is returned as is."""
    if span.isascii():
        return span
    return unicodedata.normalize("NFKC", span).translate(_FOLDS)


def has_cjk(span: str) -> bool:
    return not span.isascii() and _CJK.search(span) is not None


def mostly_cjk(text: str) -> bool:
    """More than half of the text's letters are Chinese or Japanese characters (or Hangul)."""
    if text.isascii():
        return False
    letters = sum(1 for c in text if c.isalpha())
    return letters > 0 and sum(len(run) for run in _CJK.findall(text)) * 2 > letters


def split_cjk(span: str) -> tuple[list[str], list[str]]:
    """The span's CJK runs as bigram terms, and the text between them (to be split as usual)."""
    terms: list[str] = []
    for run in _CJK.findall(span):
        terms.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    return terms, [rest for rest in _CJK.split(span) if rest]
