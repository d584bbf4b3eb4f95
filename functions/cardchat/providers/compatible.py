"""Any OpenAI-compatible endpoint (vLLM, OpenRouter, Ollama's /v1, LM Studio,
llama.cpp's server, a company's gateway) through the `openai` SDK with its
base URL: the deployment's (llm/compatible.py) or a user's own.

A user's own base URL is checked again at every call and the call pinned to
the checked address (providers/egress.py): what it resolved to when it was
stored proves nothing about now. What these servers send differs from
OpenAI's own stream: some send no usage chunk (the engine then counts the
tokens itself, generation/accounting.py), some stream the model's reasoning in
a `reasoning_content` or `reasoning` field beside the answer (never shown: only
`content` is the answer), and some end a stream with an error object, which
the SDK raises as an APIError.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cardchat.llm import compatible
from cardchat.providers import egress
from cardchat.providers.base import CONNECT_TIMEOUT_S, Message, ProviderError, client_options
from cardchat.providers.openai import OpenAIProvider

if TYPE_CHECKING:
    import httpx2
    import openai

    from cardchat.llm.models import ModelSpec
    from cardchat.providers.base import Prompt
    from cardchat.providers.tools import Search
    from cardchat.schema.messages import Usage

#: How long an endpoint's model list is kept before asking its `GET /models` again.
MODELS_TTL_S = 300.0
#: At most this many of an endpoint's models are offered (OpenRouter lists hundreds).
MAX_MODELS = 200
_models: dict[tuple[str, str], tuple[float, list[str]]] = {}
_models_lock = threading.Lock()


class CompatibleProvider(OpenAIProvider):
    """Chat Completions as OpenAI's, sent to another base URL: a user's own
    (`base_url`, set by providers.stream), else the deployment's (the spec's)."""

    provider = compatible.DEPLOYED
    key_env = ""
    _url = ""

    def stream(
        self, spec: ModelSpec, messages: list[Message], system: str, max_tokens: int, search: Search | None = None
    ) -> Iterator[str | Usage]:
        self.provider = spec.provider
        self._url = spec.base_url or self.base_url or ""
        if not self._url:
            raise ProviderError("not_configured", provider=spec.provider, detail="no base URL")
        yield from super().stream(spec, messages, system, max_tokens, search)

    def make_client(self, api_key: str, http_client: httpx2.Client | None) -> openai.OpenAI:
        import openai

        # a server that takes no key (a local Ollama) still gets one: the SDK refuses an empty key
        options = client_options(api_key or "none", http_client)
        base_url, own_client = connect(self._url, self.provider, options["timeout"])
        options["http_client"] = http_client or own_client
        return openai.OpenAI(base_url=base_url, **options)

    def model_name(self, prompt: Prompt) -> str:
        parsed = compatible.parse_model_id(prompt.spec.id)
        return parsed[1] if parsed else prompt.spec.id

    def request_options(self, prompt: Prompt) -> dict[str, Any]:
        # max_tokens: the name every compatible server knows (max_completion_tokens is OpenAI's newer one)
        return {"max_tokens": prompt.max_tokens, "stream_options": {"include_usage": True}}


def connect(url: str, provider: str, timeout: Any) -> tuple[str, httpx2.Client]:
    """The base URL as it is called, and an HTTP client for it that follows no
    redirect; a user's own (`provider` OWN) checked now, the client pinned to
    the checked address (a refused one is a bad request: it is the user's to fix)."""
    import httpx2

    if provider != compatible.OWN:
        return url.rstrip("/"), httpx2.Client(timeout=timeout, follow_redirects=False, trust_env=False)
    try:
        checked = egress.check(url)
    except egress.Refused as e:
        raise ProviderError("bad_request", provider=provider, detail=f"base_url refused: {e}") from None
    return checked.url, egress.pinned_client(checked, timeout)


def list_models(url: str, api_key: str, provider: str, http_client: httpx2.Client | None = None) -> list[str]:
    """The model names `GET {url}/models` lists, kept MODELS_TTL_S. Raises
    ProviderError or the HTTP library's error when the endpoint fails."""
    cache_key = (url, hashlib.sha256(api_key.encode()).hexdigest())
    with _models_lock:
        hit = _models.get(cache_key)
    if hit is not None and hit[0] > time.monotonic():
        return hit[1]
    import httpx2

    base_url, own_client = connect(url, provider, httpx2.Timeout(CONNECT_TIMEOUT_S * 2, connect=CONNECT_TIMEOUT_S))
    client = http_client or own_client
    try:
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        response = client.get(f"{base_url}/models", headers=headers)
        response.raise_for_status()
        listed = response.json().get("data") or []
    finally:
        own_client.close()
    ids = (str(m.get("id")) for m in listed if isinstance(m, dict))
    names = sorted({n for n in ids if compatible.MODEL_NAME.fullmatch(n)})[:MAX_MODELS]
    with _models_lock:
        _models[cache_key] = (time.monotonic() + MODELS_TTL_S, names)
    return names
