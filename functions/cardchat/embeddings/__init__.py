"""Text embeddings: one interface, three implementations (and card_quota: which cards get one).

MiniLM runs locally (no key, no network) and is the default; OpenAI and
Gemini are real API calls, chosen with CARDCHAT_EMBEDDINGS. Every stored
vector records the `model_id` that made it, and vectors of different models
are never compared (repo.embeddings filters on it).

Nothing heavy is imported here: each implementation loads its runtime or SDK
on first use, so importing this package from main.py's chain costs nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from cardchat.embeddings.base import Embedder
from cardchat.llm import secret_keys

ENV_VAR = secret_keys.EMBEDDINGS_ENV
DEFAULT = secret_keys.DEFAULT_EMBEDDINGS
NAMES = tuple(secret_keys.EMBEDDER_KEYS)


_instances: dict[str, Embedder] = {}
_lock = threading.Lock()


def resolve_name(name: str | None = None) -> str:
    resolved = (name or secret_keys.embeddings_name()).strip().lower()
    if resolved not in NAMES:
        raise ValueError(f"unknown embeddings {resolved!r}: expected one of {', '.join(NAMES)}")
    return resolved


def get_embedder(name: str | None = None) -> Embedder:
    """The process-wide embedder: a model session is expensive to open."""
    resolved = resolve_name(name)
    with _lock:
        embedder = _instances.get(resolved)
        if embedder is None:
            embedder = _create(resolved)
            _instances[resolved] = embedder
        return embedder


def _create(name: str) -> Embedder:
    if name == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if name == "openai":
        from .openai_embed import OpenAIEmbedder

        return OpenAIEmbedder()
    from .gemini_embed import GeminiEmbedder

    return GeminiEmbedder()


def pack(vec: np.ndarray) -> bytes:
    """Little-endian float32 bytes: 4 bytes a dimension, decoded with one frombuffer."""
    return np.ascontiguousarray(vec, dtype="<f4").tobytes()


def unpack(data: bytes, dim: int) -> np.ndarray:
    if len(data) != 4 * dim:
        raise ValueError(f"embedding holds {len(data)} bytes, expected {4 * dim} for dim {dim}")
    return np.frombuffer(data, dtype="<f4").astype(np.float32, copy=False)


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Many search queries' vectors, each as `embedder.embed_query` makes it: in batches where the
    embedder offers `embed_queries` (MiniLM: no query role, so one model run per batch), else one
    by one."""
    many = getattr(embedder, "embed_queries", None)
    if many is not None:
        out: np.ndarray = many(texts)
        return out
    if not texts:
        return np.zeros((0, embedder.dim), np.float32)
    return np.stack([embedder.embed_query(t) for t in texts])
