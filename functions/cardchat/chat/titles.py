"""A chat's title: a few words naming what the first question is about.

Titles are listed to the owner and shown on published links, so the model is
asked with the question alone, never with the hidden background: a title
cannot quote what the model never saw.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cardchat.llm import compatible
from cardchat.llm.models import spec_of
from cardchat.parsing.utf8 import well_formed
from cardchat.providers import Message, ProviderError, complete

if TYPE_CHECKING:
    from cardchat.repo.db import Db
    from cardchat.schema.messages import ChatMessage

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


def make_title(model_id: str, question: str, api_key: str | None = None) -> tuple[str, int]:
    """The title, and the model tokens its call used (for the owner's daily
    limit: the provider's count, else our tokenizer's; 0 when no model was
    called or the provider refused the call). `api_key`: the owner's own."""
    spec = spec_of(model_id)
    # a user's own endpoint is often a small local server: its answer comes first, the first words title it
    if spec is None or spec.key_env is None or spec.provider == compatible.OWN:
        return fallback_title(question), 0
    messages: list[Message] = [{"role": "user", "content": question}]
    try:
        text, usage = complete(model_id, messages, _INSTRUCTION, _MAX_TOKENS, api_key)
    except ProviderError:
        return fallback_title(question), 0
    used = usage.input_tokens + usage.output_tokens
    if not used:
        from cardchat.llm.tokens import count_tokens

        used = sum(count_tokens([_INSTRUCTION, question, text], spec.tokenizer))
    return clean_title(text) or fallback_title(question), used


def retitle(db: Db, chat_id: str, owner: str, first_answer: ChatMessage, question: str) -> str | None:
    """A model-written title for `owner`'s chat, from its first `question`, once its first answer is
    in (generation/answered.py); the title set, or None when the first words stay. Its tokens count
    against the owner's daily limit. After an answer admitted on the owner's own key, only that key
    may pay: if it is gone, the first words stay (the deployment's key would skip the cap, as
    run_key refuses for the answer)."""
    from cardchat.access import ratelimit
    from cardchat.access.own_keys import key_for
    from cardchat.repo import chats as chat_repo

    model_id = first_answer.model
    if not model_id:
        return None
    spec = spec_of(model_id)
    # on the owner's own key when the answer was: theirs to pay, not the day's cap
    own = key_for(db, owner, spec.provider) if owner and spec is not None and spec.key_env else None
    if own is None and first_answer.own_key:
        return None
    title, used = make_title(model_id, question, own)
    chat_repo.set_title(db, chat_id, title)
    if owner and used and own is None:
        ratelimit.charge(db, owner, used)
    return title


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
