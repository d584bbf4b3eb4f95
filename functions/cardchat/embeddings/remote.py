"""What the embedders behind a provider's API share.

A client built on first use from the key given or the environment; texts made
acceptable (no empty strings, none over the per-input token limit) and sent
in batches bounded by count and, where the API bounds it, total tokens; the
answer checked for one row of the right width per text and normalised.
Errors name the status and the provider's code only: never the texts sent,
which are card text.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from cardchat.embeddings.base import EmbeddingError, normalise


class RemoteEmbedder(ABC):
    model_id: str
    dim: int
    #: Names the provider in error messages.
    label: str
    #: Where the key is read when the constructor is given none.
    key_env: str

    def __init__(self, api_key: str | None = None, timeout: float = 60.0) -> None:
        self._api_key = api_key
        self._timeout = timeout
        self._client: Any = None
        self._lock = threading.Lock()

    @abstractmethod
    def _connect(self, key: str) -> Any:
        """The SDK client for `key`."""

    @abstractmethod
    def _request(self, texts: list[str], query: bool) -> np.ndarray:
        """One API call: (len(texts), dim) unit rows, or EmbeddingError.
        `query`: the texts are search queries, not documents."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray:
        vec: np.ndarray = self.embed([text])[0]
        return vec

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                key = self._api_key or os.environ.get(self.key_env, "").strip()
                if not key:
                    raise EmbeddingError(f"{self.label} embeddings need {self.key_env}")
                self._client = self._connect(key)
            return self._client

    def _embed(
        self,
        texts: Sequence[str],
        tokenizer: str,
        max_input_tokens: int,
        max_batch_inputs: int,
        max_batch_tokens: int | None = None,
        query: bool = False,
    ) -> np.ndarray:
        from ..llm.tokens import count_tokens, truncate_tokens

        texts = [t if t.strip() else " " for t in texts]  # the APIs reject empty strings
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        counts = count_tokens(texts, tokenizer)
        for i, n in enumerate(counts):
            if n > max_input_tokens:
                texts[i] = truncate_tokens(texts[i], max_input_tokens, tokenizer)
                counts[i] = max_input_tokens
        start = 0
        while start < len(texts):
            end, total = start, 0
            while (
                end < len(texts)
                and end - start < max_batch_inputs
                and (max_batch_tokens is None or total + counts[end] <= max_batch_tokens)
            ):
                total += counts[end]
                end += 1
            out[start:end] = self._request(texts[start:end], query)
            start = end
        return out

    def _failed(self, detail: str) -> EmbeddingError:
        return EmbeddingError(f"{self.label} embeddings failed: {detail}")

    def _rows(self, vectors: Sequence[Sequence[float]], sent: int) -> np.ndarray:
        """The provider's vectors for `sent` texts, checked and normalised."""
        if len(vectors) != sent:
            raise EmbeddingError(f"{self.label} returned {len(vectors)} embeddings for {sent} texts")
        matrix = np.array(vectors, dtype=np.float32)
        if matrix.shape[1] != self.dim:
            raise EmbeddingError(f"{self.label} returned {matrix.shape[1]}-d embeddings, expected {self.dim}")
        return normalise(matrix)
