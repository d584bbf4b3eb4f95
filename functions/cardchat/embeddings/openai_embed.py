"""OpenAI text-embedding-3-small (1536-d) through the `openai` SDK.

Chosen with CARDCHAT_EMBEDDINGS=openai; needs OPENAI_API_KEY. The API takes
up to 2,048 inputs and 300k tokens per request and 8,191 tokens per input,
so texts are cut to the per-input limit and sent in bounded batches.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Sequence

import numpy as np

from . import EmbeddingError, normalise

MODEL_ID = "text-embedding-3-small"
DIM = 1536
# text-embedding-3-* tokenize with cl100k_base.
TOKENIZER = "cl100k_base"
MAX_INPUT_TOKENS = 8_000  # the limit is 8,191: a margin for the service's own accounting
MAX_BATCH_INPUTS = 256
MAX_BATCH_TOKENS = 200_000  # the limit is 300k per request


class OpenAIEmbedder:
    model_id = MODEL_ID
    dim = DIM

    def __init__(self, api_key: str | None = None, base_url: str | None = None, timeout: float = 60.0) -> None:
        self._api_key = api_key
        self._base_url = base_url
        self._timeout = timeout
        self._client: Any = None
        self._lock = threading.Lock()

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                key = self._api_key or os.environ.get("OPENAI_API_KEY", "").strip()
                if not key:
                    raise EmbeddingError("OpenAI embeddings need OPENAI_API_KEY")
                import httpx
                import openai

                # An explicit httpx client: this SDK defaults to httpx2, and one
                # HTTP stack for every provider is easier to reason about (and to
                # test with respx) than two.
                self._client = openai.OpenAI(
                    api_key=key,
                    base_url=self._base_url,
                    timeout=self._timeout,
                    max_retries=3,
                    http_client=httpx.Client(timeout=self._timeout),
                )
            return self._client

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        from ..tokens import count_tokens, truncate_tokens

        texts = [t if t.strip() else " " for t in texts]  # the API rejects empty strings
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        counts = count_tokens(texts, TOKENIZER)
        for i, n in enumerate(counts):
            if n > MAX_INPUT_TOKENS:
                texts[i] = truncate_tokens(texts[i], MAX_INPUT_TOKENS, TOKENIZER)
                counts[i] = MAX_INPUT_TOKENS
        start = 0
        while start < len(texts):
            end, total = start, 0
            while end < len(texts) and end - start < MAX_BATCH_INPUTS and total + counts[end] <= MAX_BATCH_TOKENS:
                total += counts[end]
                end += 1
            out[start:end] = self._request(texts[start:end])
            start = end
        return out

    def _request(self, texts: list[str]) -> np.ndarray:
        import openai

        client = self._get_client()
        try:
            response = client.embeddings.create(model=MODEL_ID, input=texts, encoding_format="float")
        except openai.APIStatusError as exc:
            code = getattr(exc, "code", None) or type(exc).__name__
            raise EmbeddingError(f"OpenAI embeddings failed: HTTP {exc.status_code} ({code})") from None
        except openai.APIError as exc:
            raise EmbeddingError(f"OpenAI embeddings failed: {type(exc).__name__}") from None
        rows = sorted(response.data, key=lambda d: d.index)
        if len(rows) != len(texts):
            raise EmbeddingError(f"OpenAI returned {len(rows)} embeddings for {len(texts)} texts")
        matrix = np.array([r.embedding for r in rows], dtype=np.float32)
        if matrix.shape[1] != DIM:
            raise EmbeddingError(f"OpenAI returned {matrix.shape[1]}-d embeddings, expected {DIM}")
        return normalise(matrix)
