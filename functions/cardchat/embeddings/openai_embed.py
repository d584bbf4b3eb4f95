"""OpenAI text-embedding-3-small (1536-d) through the `openai` SDK.

Chosen with CARDCHAT_EMBEDDINGS=openai; needs OPENAI_API_KEY. The API takes
up to 2,048 inputs and 300k tokens per request and 8,191 tokens per input,
so texts are cut to the per-input limit and sent in bounded batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..llm.secret_keys import EMBEDDER_KEYS
from .remote import RemoteEmbedder

MODEL_ID = "text-embedding-3-small"
DIM = 1536
# text-embedding-3-* tokenize with cl100k_base.
TOKENIZER = "cl100k_base"
MAX_INPUT_TOKENS = 8_000  # the limit is 8,191: a margin for the service's own accounting
MAX_BATCH_INPUTS = 256
MAX_BATCH_TOKENS = 200_000  # the limit is 300k per request


class OpenAIEmbedder(RemoteEmbedder):
    model_id = MODEL_ID
    dim = DIM
    label = "OpenAI"
    key_env = EMBEDDER_KEYS["openai"] or ""  # a remote embedder always names its key

    def __init__(self, api_key: str | None = None, base_url: str | None = None, timeout: float = 60.0) -> None:
        super().__init__(api_key, timeout)
        self._base_url = base_url

    def _connect(self, key: str) -> Any:
        import httpx
        import openai

        # An explicit httpx client: this SDK defaults to httpx2, and one
        # HTTP stack for every provider is easier to reason about (and to
        # test with respx) than two.
        return openai.OpenAI(
            api_key=key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=3,
            http_client=httpx.Client(timeout=self._timeout),  # type: ignore[arg-type]  # typed httpx2-only, takes both
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, TOKENIZER, MAX_INPUT_TOKENS, MAX_BATCH_INPUTS, MAX_BATCH_TOKENS)

    def _request(self, texts: list[str], query: bool) -> np.ndarray:  # one role for both
        import openai

        client = self._get_client()
        try:
            response = client.embeddings.create(model=MODEL_ID, input=texts, encoding_format="float")
        except openai.APIStatusError as exc:
            code = getattr(exc, "code", None) or type(exc).__name__
            raise self._failed(f"HTTP {exc.status_code} ({code})") from None
        except openai.APIError as exc:
            raise self._failed(type(exc).__name__) from None
        rows = sorted(response.data, key=lambda d: d.index)
        return self._rows([r.embedding for r in rows], len(texts))
