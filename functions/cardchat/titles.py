"""A chat's title: a few words naming what the first question is about.

Titles are listed to the owner and shown on published links, so the model is
asked with the question alone, never with the hidden background: a title
cannot quote what the model never saw.
"""

from __future__ import annotations

import re

from cardchat.models import MODELS
from cardchat.providers import ProviderError, complete
from cardchat.utf8 import well_formed

MAX_WORDS = 7
MAX_CHARS = 80
DEFAULT_TITLE = "New chat"

_INSTRUCTION = (
    "You name chats. Reply with a title of at most 7 words for a chat that starts with the "
    "user's message. Reply with the title only: no quotes, no trailing punctuation, no preamble."
)
#: Enough for seven words in any tokenizer, and a little slack.
_MAX_TOKENS = 40

_QUOTES = "\"'“”‘’«»„`"
_PREFIX = re.compile(r"^(?:title|chat title)\s*[:\-–—]\s*", re.IGNORECASE)
_MARKUP = re.compile(r"[*_#>`~]+")


def make_title(model_id: str, question: str) -> str:
    spec = MODELS.get(model_id)
    if spec is None or spec.key_env is None:
        return fallback_title(question)
    try:
        text, _usage = complete(model_id, [{"role": "user", "content": question}], _INSTRUCTION, _MAX_TOKENS)
    except ProviderError:
        return fallback_title(question)
    return clean_title(text) or fallback_title(question)


def fallback_title(question: str) -> str:
    """The question's first words: honest, and all the user's own."""
    return clean_title(question) or DEFAULT_TITLE


def clean_title(text: str) -> str:
    """One line, no markup or quotes, at most MAX_WORDS words and MAX_CHARS characters."""
    line = next((ln for ln in well_formed(text).splitlines() if ln.strip()), "")
    line = _MARKUP.sub("", line)
    line = _PREFIX.sub("", line.strip())
    line = "".join(ch for ch in line if ch not in _QUOTES)
    words = line.split()[:MAX_WORDS]
    title = ""
    for word in words:
        candidate = f"{title} {word}".strip()
        if len(candidate) > MAX_CHARS:
            if not title:  # one enormous "word": cut it
                title = word[: MAX_CHARS - 1] + "…"
            break
        title = candidate
    return title.rstrip(".,;:!-–— ")
