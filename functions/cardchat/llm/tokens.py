"""Token counting for every model family, in batches.

OpenAI models are counted exactly with tiktoken's encodings, which load
offline from the BPE files in assets/tiktoken. Claude's and Gemini's
tokenizers are not available offline, so their counts are conservative
estimates derived from o200k_base: the background is packed to a budget in
these units, and an estimate that runs low would overflow the model's window
(a request error) while one that runs high only leaves a few cards out.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

TIKTOKEN_DIR = Path(__file__).resolve().parents[1] / "assets" / "tiktoken"

#: Multipliers on o200k_base counts for tokenizers we cannot run.
#: Claude: Anthropic's tokenizer yields more tokens than OpenAI's o200k on the
#: same text, more on source code than on English prose (published
#: side-by-side comparisons), and Anthropic says its newest tokenizer may use
#: up to 1.35x the tokens of its previous one. 1.35 covers code-heavy cards
#: with a margin; on prose it wastes some of the budget, which costs a few
#: cards rather than a failed request.
#: Gemini: its SentencePiece vocabulary (256k) is about as efficient as
#: o200k on English and somewhat less on code and markup; 1.25 errs high.
#: An OpenAI-compatible endpoint's model (llm/compatible.py) may use any
#: tokenizer, many with vocabularies a quarter or less of o200k's (Llama 2,
#: Mistral): 1.5 errs high for all of them.
ESTIMATE_FACTORS: dict[str, float] = {"estimate-claude": 1.35, "estimate-gemini": 1.25, "estimate-open": 1.5}
ENCODINGS = ("o200k_base", "cl100k_base")
TOKENIZERS = ENCODINGS + tuple(ESTIMATE_FACTORS)

_encodings: dict[str, Any] = {}
_lock = threading.Lock()


def _encoding(name: str) -> Any:
    enc = _encodings.get(name)
    if enc is not None:
        return enc
    with _lock:
        if name not in _encodings:
            if not TIKTOKEN_DIR.is_dir() or not any(TIKTOKEN_DIR.iterdir()):
                raise RuntimeError(
                    f"tiktoken BPE files missing in {TIKTOKEN_DIR}: run scripts/setup to fetch the offline assets"
                )
            # tiktoken reads this when it loads an encoding; set before the
            # first load so it never tries the network.
            os.environ["TIKTOKEN_CACHE_DIR"] = str(TIKTOKEN_DIR)
            import tiktoken

            _encodings[name] = tiktoken.get_encoding(name)
        return _encodings[name]


def _base(tokenizer: str) -> tuple[Any, float | None]:
    """The tiktoken encoding that counts for `tokenizer`, and its estimate factor."""
    if tokenizer in ESTIMATE_FACTORS:
        return _encoding("o200k_base"), ESTIMATE_FACTORS[tokenizer]
    if tokenizer in ENCODINGS:
        return _encoding(tokenizer), None
    raise ValueError(f"unknown tokenizer {tokenizer!r}: expected one of {', '.join(TOKENIZERS)}")


def _raw_counts(enc: Any, texts: Sequence[str]) -> list[int]:
    # One pass in this thread. tiktoken's encode_ordinary_batch runs a thread
    # pool over the texts; measured on card blocks it spent more CPU than this
    # loop, and on a 2-core instance shared with other work the threads bought
    # no wall time.
    encode = enc.encode_ordinary
    return [len(encode(t)) for t in texts]


def count_tokens(texts: Sequence[str], tokenizer: str) -> list[int]:
    """Tokens of each text, counted in one batch. Special-token strings
    ("<|endoftext|>") in card text count as ordinary text, as providers
    count user content."""
    enc, factor = _base(tokenizer)
    counts = _raw_counts(enc, texts)
    if factor is None:
        return counts
    return [math.ceil(n * factor) for n in counts]


def truncate_tokens(text: str, max_tokens: int, tokenizer: str) -> str:
    """The longest prefix of `text`, cut at a token boundary, that counts at
    most `max_tokens` by `tokenizer`."""
    if max_tokens <= 0:
        return ""
    enc, factor = _base(tokenizer)
    limit = max_tokens if factor is None else int(max_tokens / factor)
    ids = enc.encode_ordinary(text)
    if len(ids) <= limit:
        return text
    while limit > 0:
        # A cut inside a multi-byte character leaves a partial byte sequence: drop it.
        prefix: str = enc.decode_bytes(ids[:limit]).decode("utf-8", errors="ignore")
        # Re-encoding a cut prefix can merge differently at its end; check the count itself.
        if count_tokens([prefix], tokenizer)[0] <= max_tokens:
            return prefix
        limit -= 1
    return ""
