"""Gemini gemini-embedding-001 through the `google-genai` SDK.

Chosen with CARDCHAT_EMBEDDINGS=gemini; needs GEMINI_API_KEY. The model's
native 3,072 dimensions are reduced to 768 with `output_dimensionality`
(Matryoshka training keeps quality close, and the stored vector is a quarter
of the size); reduced outputs are not unit length, so rows are normalised
here. Cards are embedded as RETRIEVAL_DOCUMENT and a chat's question as
RETRIEVAL_QUERY, the task types the model was trained to pair; the stored
model id names them, so vectors made without them are re-embedded. The API
takes up to 100 texts per batchEmbedContents call and 2,048 tokens per text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..llm.secret_keys import EMBEDDER_KEYS
from .remote import RemoteEmbedder

MODEL_ID = "gemini-embedding-001"
DIM = 768
#: What stored vectors record: the model, its width and the task types used.
STORED_ID = f"{MODEL_ID}/{DIM}/retrieval"
MAX_BATCH = 100
# No Gemini tokenizer offline: cut with the conservative estimate (llm/tokens.py),
# which errs high, so a cut text is within the 2,048-token limit.
TOKENIZER = "estimate-gemini"
MAX_INPUT_TOKENS = 2_000


class GeminiEmbedder(RemoteEmbedder):
    model_id = STORED_ID
    dim = DIM
    label = "Gemini"
    key_env = EMBEDDER_KEYS["gemini"] or ""  # a remote embedder always names its key

    def _connect(self, key: str) -> Any:
        import httpx
        from google import genai
        from google.genai import types

        # An explicit httpx client: google-genai otherwise prefers httpx2
        # when it is installed, and one HTTP stack is easier to reason
        # about (and to test with respx) than two.
        return genai.Client(
            api_key=key,
            http_options=types.HttpOptions(
                httpx_client=httpx.Client(timeout=self._timeout),
                timeout=int(self._timeout * 1000),
                retry_options=types.HttpRetryOptions(attempts=3),
            ),
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, TOKENIZER, MAX_INPUT_TOKENS, MAX_BATCH)

    def embed_query(self, text: str) -> np.ndarray:
        vec: np.ndarray = self._embed([text], TOKENIZER, MAX_INPUT_TOKENS, MAX_BATCH, query=True)[0]
        return vec

    def _request(self, texts: list[str], query: bool) -> np.ndarray:
        from google.genai import errors, types

        client = self._get_client()
        try:
            response = client.models.embed_content(
                model=MODEL_ID,
                contents=texts,
                config=types.EmbedContentConfig(
                    output_dimensionality=DIM, task_type="RETRIEVAL_QUERY" if query else "RETRIEVAL_DOCUMENT"
                ),
            )
        except errors.APIError as exc:
            # str(exc) carries the whole response body: report status only.
            raise self._failed(f"HTTP {exc.code} ({exc.status})") from None
        return self._rows([e.values for e in response.embeddings or []], len(texts))
