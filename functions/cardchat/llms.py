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


@dataclass(frozen=True)
class ModelSpec:
    id: str
    provider: str  # key into providers.PROVIDERS
    label: str
    context_window: int  # tokens
    max_output_tokens: int
    key_env: str | None  # the secret / env variable holding the API key; None: no key needed
    # How tokens are counted for this model (tokens.py): a tiktoken encoding
    # where the real tokenizer is available offline, else a calibrated estimate.
    tokenizer: str

    def public(self) -> dict[str, Any]:
        """What listModels tells a client: no key names."""
        d = asdict(self)
        d.pop("key_env")
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


def key_present(spec: ModelSpec, env: Mapping[str, str] | None = None) -> bool:
    if spec.key_env is None:
        return True
    env = os.environ if env is None else env
    return bool(env.get(spec.key_env, "").strip())


def available_models(env: Mapping[str, str] | None = None, own_keys: frozenset[str] = frozenset()) -> list[ModelSpec]:
    """The models with a key: the deployment's, or the caller's own for the provider (`own_keys`)."""
    return [m for m in MODELS.values() if key_present(m, env) or (m.key_env is not None and m.provider in own_keys)]


def default_model_id(env: Mapping[str, str] | None = None, own_keys: frozenset[str] = frozenset()) -> str:
    """The first keyed model (the caller's own keys count), else the offline answerer."""
    keyed = [m for m in available_models(env, own_keys) if m.key_env]
    return keyed[0].id if keyed else OFFLINE_MODEL_ID
