"""The fixed headlines a client may read about a failed or delayed answer.

`chat_messages.error` and `provider_wait.reason` are read by the chat's owner
and by every visitor of a published chat, so they hold one of these sentences
and nothing else: each is built from (provider, kind, HTTP status) alone, so
no word a provider said (which may echo the hidden background, upper-cased,
URL-encoded or JSON-escaped past any scrubber) can reach them. The provider's
own words go, scrubbed, to the server log only. The SPA shows a headline as it
is.
"""

from __future__ import annotations

from functools import lru_cache

#: Provider ids (models.ModelSpec.provider) as a headline names them.
PROVIDER_NAMES: dict[str, str] = {
    "anthropic": "Anthropic",
    "openai": "OpenAI",
    "gemini": "Gemini",
    "offline": "the offline answerer",
    "compatible": "OpenAI-compatible endpoint",
    "openai_compatible": "OpenAI-compatible endpoint",
}
#: Who failed when the provider is not known.
UNKNOWN_PROVIDER = "the provider"

#: One sentence per kind of failure; `{p}` is the provider's name. The kinds
#: a provider reports are providers.base.ErrorKind; the rest are the engine's.
TEMPLATES: dict[str, str] = {
    "rate_limited": "{p} rate limit reached",
    "overloaded": "{p} is overloaded",
    "auth": "{p} rejected the API key",
    "bad_request": "{p} rejected the request",
    "blocked": "{p} blocked the prompt",
    "context_too_long": "The conversation is too long for the model's context window",
    "timeout": "{p} timed out",
    "network": "Network error reaching {p}",
    "incomplete": "{p} stopped before the answer was complete",
    "provider": "{p} failed",
    "not_configured": "{p} is not configured on this server",
    "unknown_model": "This chat's model is not available",
    "internal": "The answer could not be generated",
    # the sweeper's (generation/sweeper.py): a run that died, or a stub nothing ever claimed
    "interrupted": "The answer stopped before it finished",
    "not_started": "The answer could not be started",
    # the engine's: the chat's owner answers on their own key, which was deleted before the run
    "own_key_gone": "Your own {p} API key was removed before the answer started",
}
#: Before the headline of a failure on the user's own API key (access/own_keys.py):
#: it is their key that failed, not the deployment's.
OWN_KEY_PREFIX = "Your own {p} API key failed: "
#: Kinds that are no fault of the key: no prefix.
_NOT_THE_KEY = frozenset(
    {"context_too_long", "unknown_model", "internal", "own_key_gone", "interrupted", "not_started"}
)
#: Kinds whose headline ends with the HTTP status the provider answered.
_WITH_STATUS = frozenset({"rate_limited", "overloaded", "auth", "bad_request", "context_too_long", "provider"})


def headline(provider: str | None, kind: str, status: int | None = None, own_key: bool = False) -> str:
    """The one sentence a client may read about this failure; `own_key`: the
    call was made with the user's own API key."""
    name = PROVIDER_NAMES.get(provider or "", UNKNOWN_PROVIDER)
    text = TEMPLATES.get(kind, TEMPLATES["provider"]).format(p=name)
    text = text[0].upper() + text[1:]
    if kind in _WITH_STATUS and isinstance(status, int) and 400 <= status <= 599:
        text += f" (HTTP {status})"
    if own_key and kind not in _NOT_THE_KEY:
        text = OWN_KEY_PREFIX.format(p=name) + text
    return text


@lru_cache(maxsize=1)
def all_headlines() -> frozenset[str]:
    """Every sentence `headline` can return: the whole fixed set."""
    providers = [*PROVIDER_NAMES, None]
    statuses = [None, *range(400, 600)]
    return frozenset(
        headline(p, k, s, own) for p in providers for k in TEMPLATES for s in statuses for own in (False, True)
    )
