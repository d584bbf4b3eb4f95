"""Gemini gemini-embedding-001 through the `google-genai` SDK.

Chosen with CARDCHAT_EMBEDDINGS=gemini; needs GEMINI_API_KEY. The model's
native 3,072 dimensions are reduced to 768 with `output_dimensionality`
(Matryoshka training keeps quality close, and the stored vector is a quarter
of the size); reduced outputs are not unit length, so rows are normalised
here. The API takes up to 100 texts per batchEmbedContents call and 2,048
tokens per text.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Sequence

import numpy as np

from . import EmbeddingError, normalise

MODEL_ID = "gemini-embedding-001"
DIM = 768
MAX_BATCH = 100
# No Gemini tokenizer offline: cut with the conservative estimate (tokens.py),
# which errs high, so a cut text is within the 2,048-token limit.
TOKENIZER = "estimate-gemini"
MAX_INPUT_TOKENS = 2_000


class GeminiEmbedder:
    model_id = MODEL_ID
    dim = DIM

    def __init__(self, api_key: str | None = None, timeout: float = 60.0) -> None:
        self._api_key = api_key
        self._timeout = timeout
        self._client: Any = None
        self._lock = threading.Lock()

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                key = self._api_key or os.environ.get("GEMINI_API_KEY", "").strip()
                if not key:
                    raise EmbeddingError("Gemini embeddings need GEMINI_API_KEY")
                import httpx
                from google import genai
                from google.genai import types

                # An explicit httpx client: google-genai otherwise prefers httpx2
                # when it is installed, and one HTTP stack is easier to reason
                # about (and to test with respx) than two.
                self._client = genai.Client(
                    api_key=key,
                    http_options=types.HttpOptions(
                        httpx_client=httpx.Client(timeout=self._timeout),
                        timeout=int(self._timeout * 1000),
                        retry_options=types.HttpRetryOptions(attempts=3),
                    ),
                )
            return self._client

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        from ..tokens import count_tokens, truncate_tokens

        texts = [t if t.strip() else " " for t in texts]
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        for i, n in enumerate(count_tokens(texts, TOKENIZER)):
            if n > MAX_INPUT_TOKENS:
                texts[i] = truncate_tokens(texts[i], MAX_INPUT_TOKENS, TOKENIZER)
        for start in range(0, len(texts), MAX_BATCH):
            out[start : start + MAX_BATCH] = self._request(texts[start : start + MAX_BATCH])
        return out

    def _request(self, texts: list[str]) -> np.ndarray:
        from google.genai import errors, types

        client = self._get_client()
        try:
            response = client.models.embed_content(
                model=MODEL_ID,
                contents=texts,
                config=types.EmbedContentConfig(output_dimensionality=DIM),
            )
        except errors.APIError as exc:
            # str(exc) carries the whole response body: report status only.
            raise EmbeddingError(f"Gemini embeddings failed: HTTP {exc.code} ({exc.status})") from None
        embeddings = response.embeddings or []
        if len(embeddings) != len(texts):
            raise EmbeddingError(f"Gemini returned {len(embeddings)} embeddings for {len(texts)} texts")
        matrix = np.array([e.values for e in embeddings], dtype=np.float32)
        if matrix.shape[1] != DIM:
            raise EmbeddingError(f"Gemini returned {matrix.shape[1]}-d embeddings, expected {DIM}")
        return normalise(matrix)
