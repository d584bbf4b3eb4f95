"""Model providers behind one call: `stream(model_id, messages, system)`.

Adding a model is one entry in models.MODELS; adding a provider is one module
here and one entry in PROVIDERS. Provider modules import their SDKs, so they
load only when a model of theirs is first used.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Generator

from cardchat.llm.models import ModelSpec, key_present, spec_of
from cardchat.providers import declining
from cardchat.providers.base import Message, Provider, ProviderError, SDKProvider
from cardchat.providers.scrub import scrub_error
from cardchat.providers.tools import Search
from cardchat.schema.messages import Usage

__all__ = ["PROVIDERS", "Message", "Provider", "ProviderError", "complete", "stream"]


def _lazy(module: str, cls: str) -> Callable[[], Provider]:
    def factory() -> Provider:
        provider: Provider = getattr(importlib.import_module(f"cardchat.providers.{module}"), cls)()
        return provider

    return factory


PROVIDERS: dict[str, Callable[[], Provider]] = {
    "anthropic": _lazy("anthropic", "AnthropicProvider"),
    "openai": _lazy("openai", "OpenAIProvider"),
    "gemini": _lazy("gemini", "GeminiProvider"),
    "offline": _lazy("offline", "OfflineProvider"),
    # OpenAI-compatible endpoints: the deployment's, and a user's own (llm/compatible.py)
    "compatible": _lazy("compatible", "CompatibleProvider"),
    "openai_compatible": _lazy("compatible", "CompatibleProvider"),
}


def resolve(model_id: str, own_key: bool = False) -> ModelSpec:
    spec = spec_of(model_id)
    if spec is None:
        raise ProviderError("unknown_model", detail=f"unknown model {model_id[:60]!r}")
    if not own_key and not key_present(spec):
        raise ProviderError("not_configured", provider=spec.provider, detail="no API key is configured")
    return spec


def stream(
    model_id: str,
    messages: list[Message],
    system: str,
    max_tokens: int | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    search: Search | None = None,
) -> Generator[str | Usage, None, None]:
    """Text deltas, then exactly one Usage. Raises ProviderError only.
    `api_key`: the user's own key (access/own_keys.py), used instead of the
    deployment's; a failure then says it is theirs that failed; `base_url`: the
    user's own OpenAI-compatible endpoint, stored with that key; `search`: the
    search_cards tool (providers/tools.py), offered to a model that takes tools. A keyed model
    reads before the background how to say that the cards don't cover the
    question (before it, so a follow-up's system text still starts with the
    last one's: a prompt cache keeps its prefix)."""
    spec = resolve(model_id, own_key=api_key is not None)
    if spec.key_env is not None:
        system = f"{declining.INSTRUCTION}\n\n{system}" if system else declining.INSTRUCTION
    if not messages or messages[-1]["role"] != "user":
        raise ProviderError(
            "bad_request", provider=spec.provider, detail="the conversation must end with a user message"
        )
    budget = spec.max_output_tokens if max_tokens is None else max(1, min(max_tokens, spec.max_output_tokens))
    usage_seen = False
    provider = PROVIDERS[spec.provider]()
    if api_key is not None and isinstance(provider, SDKProvider):
        provider.api_key, provider.base_url = api_key, base_url
    try:
        for item in provider.stream(spec, messages, system, budget, search):
            if isinstance(item, Usage):
                usage_seen = True
            yield item
    except ProviderError as e:
        if api_key is not None:
            e.on_own_key()
        raise
    except Exception as e:  # an SDK surprise must not leak its text unscrubbed
        secrets = [os.environ.get(spec.key_env) if spec.key_env else None, api_key]
        said = scrub_error(
            str(e), secrets=secrets, background=system, prompt=[m["content"] for m in messages], limit=160
        )
        failed = ProviderError("provider", provider=spec.provider, detail=f"unexpected {type(e).__name__}: {said}")
        raise (failed.on_own_key() if api_key is not None else failed) from None
    if not usage_seen:
        yield Usage()


def complete(
    model_id: str, messages: list[Message], system: str, max_tokens: int | None = None, api_key: str | None = None
) -> tuple[str, Usage]:
    parts: list[str] = []
    usage = Usage()
    for item in stream(model_id, messages, system, max_tokens, api_key):
        if isinstance(item, Usage):
            usage = item
        else:
            parts.append(item)
    return "".join(parts), usage
