"""The model table: adding a model is one entry here.

A model is offered (listModels) and accepted (createChat) only when the
environment holds its provider's key; the offline extractive answerer needs no
key and is always there, so the app works with no network at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from cardchat.llm import compatible


@dataclass(frozen=True)
class ModelSpec:
    id: str
    provider: str  # key into providers.PROVIDERS
    label: str
    context_window: int  # tokens
    max_output_tokens: int
    key_env: str | None  # the secret / env variable holding the API key; None: no key needed
    # How tokens are counted for this model (llm/tokens.py): a tiktoken encoding
    # where the real tokenizer is available offline, else a calibrated estimate.
    tokenizer: str
    # a deployment's OpenAI-compatible endpoint (llm/compatible.py); a user's own is stored with their key
    base_url: str | None = None

    def public(self) -> dict[str, Any]:
        """What listModels tells a client: no key names, no URL (the label names the host)."""
        d = asdict(self)
        d.pop("key_env")
        d.pop("base_url")
        d["priced"] = self.id in PRICES
        d["offline"] = self.key_env is None
        return d


OFFLINE_MODEL_ID = "offline-extractive"

MODELS: dict[str, ModelSpec] = {
    m.id: m
    for m in [
        ModelSpec(
            id=OFFLINE_MODEL_ID,
            provider="offline",
            label="Offline extractive answerer (no model key)",
            context_window=32_768,
            max_output_tokens=1_024,
            key_env=None,
            tokenizer="o200k_base",
        ),
        ModelSpec(
            "claude-sonnet-4-6",
            "anthropic",
            "Claude Sonnet 4.6",
            200_000,
            16_000,
            "ANTHROPIC_API_KEY",
            "estimate-claude",
        ),
        ModelSpec(
            "claude-haiku-4-5", "anthropic", "Claude Haiku 4.5", 200_000, 8_192, "ANTHROPIC_API_KEY", "estimate-claude"
        ),
        ModelSpec("gpt-4.1", "openai", "GPT-4.1", 1_047_576, 32_768, "OPENAI_API_KEY", "o200k_base"),
        ModelSpec("gpt-4o-mini", "openai", "GPT-4o mini", 128_000, 16_384, "OPENAI_API_KEY", "o200k_base"),
        # A reasoning model: its hidden reasoning counts against max_completion_tokens,
        # and its first visible token can take a minute (the engine's deadline allows it).
        ModelSpec("o3", "openai", "OpenAI o3 (reasoning)", 200_000, 100_000, "OPENAI_API_KEY", "o200k_base"),
        ModelSpec(
            "gemini-2.5-flash", "gemini", "Gemini 2.5 Flash", 1_048_576, 65_536, "GEMINI_API_KEY", "estimate-gemini"
        ),
        ModelSpec("gemini-2.5-pro", "gemini", "Gemini 2.5 Pro", 1_048_576, 65_536, "GEMINI_API_KEY", "estimate-gemini"),
    ]
}

#: The API-key names, declared as Firebase secrets on the functions that call models.
KEY_NAMES: tuple[str, ...] = tuple(sorted({m.key_env for m in MODELS.values() if m.key_env}))


#: What an OpenAI-compatible model is assumed to take when its endpoint says
#: nothing (the OpenAI API has no field for it): small enough for the servers
#: people run locally, and a request that overflows fails with a headline.
COMPATIBLE_CONTEXT_WINDOW = 32_768
COMPATIBLE_MAX_OUTPUT = 4_096
#: Their tokenizers are unknown (Llama, Qwen, Mistral...): counted as an estimate (llm/tokens.py).
COMPATIBLE_TOKENIZER = "estimate-open"
#: The key_env of a user's own endpoint's models: never set, so only their own key answers them.
OWN_ENDPOINT_KEY = "CARDCHAT_OWN_ENDPOINT_KEY"


def compatible_spec(model: str, endpoint: compatible.Endpoint | None = None, base_url: str | None = None) -> ModelSpec:
    """The spec of `model` on the deployment's `endpoint`, or (None) on a
    user's own endpoint, whose `base_url` (stored with their key) only names its host."""
    url = endpoint.base_url if endpoint else base_url
    return ModelSpec(
        id=compatible.model_id(model, endpoint.id if endpoint else None),
        provider=compatible.DEPLOYED if endpoint else compatible.OWN,
        label=compatible.label(model, url) if url else model,
        context_window=COMPATIBLE_CONTEXT_WINDOW,
        max_output_tokens=COMPATIBLE_MAX_OUTPUT,
        key_env=endpoint.key_env if endpoint else OWN_ENDPOINT_KEY,
        tokenizer=COMPATIBLE_TOKENIZER,
        base_url=endpoint.base_url if endpoint else None,
    )


def spec_of(model_id: str | None, env: Mapping[str, str] | None = None) -> ModelSpec | None:
    """The spec of any model id: one of MODELS, or a compatible endpoint's (None: no such model)."""
    if not model_id:
        return None
    spec = MODELS.get(model_id)
    if spec is not None:
        return spec
    parsed = compatible.parse_model_id(model_id)
    if parsed is None:
        return None
    endpoint_id, name = parsed
    if endpoint_id is None:
        return compatible_spec(name)
    endpoint = compatible.endpoints(env).get(endpoint_id)
    return compatible_spec(name, endpoint) if endpoint is not None else None


def key_present(spec: ModelSpec, env: Mapping[str, str] | None = None) -> bool:
    if spec.key_env is None:
        return True
    if spec.provider == compatible.OWN:
        return False
    env = os.environ if env is None else env
    return bool(env.get(spec.key_env, "").strip())


def available_models(env: Mapping[str, str] | None = None, own_keys: frozenset[str] = frozenset()) -> list[ModelSpec]:
    """The models with a key: the deployment's, or the caller's own for the provider (`own_keys`);
    of the compatible endpoints, those the setting names (the rest come from their `GET /models`)."""
    named = [compatible_spec(n, e) for e in compatible.endpoints(env).values() for n in e.models]
    return [
        m
        for m in [*MODELS.values(), *named]
        if key_present(m, env) or (m.key_env is not None and m.provider in own_keys)
    ]


def default_model_id(env: Mapping[str, str] | None = None, own_keys: frozenset[str] = frozenset()) -> str:
    """The first keyed model (the caller's own keys count), else the offline answerer."""
    keyed = [m for m in available_models(env, own_keys) if m.key_env]
    return keyed[0].id if keyed else OFFLINE_MODEL_ID


# --- prices: what an answer cost ------------------------------------


@dataclass(frozen=True)
class Price:
    """A model's list price in US dollars per million tokens, as published on
    `as_of` (a price change is a new entry with a new date, so old answers keep
    the cost they were charged). Cached input is what the provider bills for
    prompt tokens read from its cache, cache writes what it bills for storing
    them (Anthropic only); both are part of the prompt's token count."""

    as_of: str  # YYYY-MM-DD the figures were read off the provider's price page
    input: float
    output: float
    cached_input: float | None = None  # None: the provider reports no cached tokens for it
    cache_write: float | None = None
    # Gemini 2.5 Pro bills a prompt longer than this at the second price for the whole call
    long_prompt_above: int | None = None
    long_prompt: Price | None = None


#: One entry per model of MODELS (tests/llm/test_prices.py holds them to that).
PRICES: dict[str, Price] = {
    OFFLINE_MODEL_ID: Price("2025-10-01", 0.0, 0.0),
    # anthropic.com/pricing: cache reads 0.1x input, 5-minute cache writes 1.25x
    "claude-sonnet-4-6": Price("2025-10-01", 3.00, 15.00, cached_input=0.30, cache_write=3.75),
    "claude-haiku-4-5": Price("2025-10-01", 1.00, 5.00, cached_input=0.10, cache_write=1.25),
    # openai.com/api/pricing: cached input is reported as prompt_tokens_details.cached_tokens
    "gpt-4.1": Price("2025-10-01", 2.00, 8.00, cached_input=0.50),
    "gpt-4o-mini": Price("2025-10-01", 0.15, 0.60, cached_input=0.075),
    "o3": Price("2025-10-01", 2.00, 8.00, cached_input=0.50),
    # ai.google.dev/gemini-api/docs/pricing: thinking is billed as output
    "gemini-2.5-flash": Price("2025-10-01", 0.30, 2.50, cached_input=0.03),
    "gemini-2.5-pro": Price(
        "2025-10-01",
        1.25,
        10.00,
        cached_input=0.125,
        long_prompt_above=200_000,
        long_prompt=Price("2025-10-01", 2.50, 15.00, cached_input=0.25),
    ),
}


def cost_usd(
    model_id: str, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0, cache_write_tokens: int = 0
) -> float | None:
    """What one call cost in US dollars. `input_tokens` is the whole prompt,
    cached reads and cache writes included; None for a model without a known
    price (a compatible endpoint's): unknown, never 0."""
    price = PRICES.get(model_id)
    if price is None:
        return None
    if price.long_prompt is not None and price.long_prompt_above is not None and input_tokens > price.long_prompt_above:
        price = price.long_prompt
    cached = cached_input_tokens if price.cached_input is not None else 0
    written = cache_write_tokens if price.cache_write is not None else 0
    fresh = max(0, input_tokens - cached - written)
    dollars = (
        fresh * price.input
        + cached * (price.cached_input or 0.0)
        + written * (price.cache_write or 0.0)
        + output_tokens * price.output
    ) / 1_000_000
    # a millionth of a cent is far below any price; rounding keeps stored sums readable
    return round(dollars, 8)
