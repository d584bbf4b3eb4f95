"""Which API keys a deployment binds as Firebase secrets.

In production a function sees a key only if it declares it as a secret, so
every function that can reach a model provider or a remote embedder (or
answers by whether a key is present) must declare the keys; endpoints/base.py's
USES_KEYS names those functions. Declaring a secret that was never created
fails the deploy, so the model keys bound are the ones listed in
CARDCHAT_SECRETS (functions/.env, read at deploy time); the key of a remote
embedder chosen with CARDCHAT_EMBEDDINGS is bound whether listed or not:
without it every card would fail to embed, and a deploy that stops on the
missing secret says so at once. Light on purpose: every endpoint imports it at cold
start (the embeddings package would load numpy).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from cardchat.llm import compatible
from cardchat.llm.keycrypt import KEY_ENV as USER_KEYS_SECRET
from cardchat.llm.models import KEY_NAMES

SECRETS_ENV = "CARDCHAT_SECRETS"
EMBEDDINGS_ENV = "CARDCHAT_EMBEDDINGS"
DEFAULT_EMBEDDINGS = "minilm"
#: The key each embedder reads (None: it runs locally). The embeddings
#: package takes its names and its remote embedders' key names from here.
EMBEDDER_KEYS: dict[str, str | None] = {"minilm": None, "openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY"}


def embeddings_name(env: Mapping[str, str] | None = None) -> str:
    """The embedder chosen with CARDCHAT_EMBEDDINGS (not checked: see embeddings.resolve_name)."""
    env = os.environ if env is None else env
    return (env.get(EMBEDDINGS_ENV) or DEFAULT_EMBEDDINGS).strip().lower()


def bound_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """The key names the functions that use keys declare, sorted."""
    env = os.environ if env is None else env
    # the models' keys, and the one that seals users' own keys (llm/keycrypt.py)
    known = {*KEY_NAMES, USER_KEYS_SECRET}
    listed = {k for k in env.get(SECRETS_ENV, "").replace(" ", "").split(",") if k in known}
    embedder = EMBEDDER_KEYS.get(embeddings_name(env))
    # an OpenAI-compatible endpoint's key is bound whenever the endpoint is listed, as the embedder's is
    endpoints = {e.key_env for e in compatible.endpoints(env).values()}
    return sorted(listed | endpoints | ({embedder} if embedder else set()))
