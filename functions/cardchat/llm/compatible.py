"""OpenAI-compatible endpoints: the deployment's own, listed in one setting,
and a user's own, stored with their key (access/own_keys.py).

Their models are not in models.MODELS: an endpoint serves whatever it serves
(its `GET /models`), so a model id names the endpoint and the model, and
models.spec_of builds its ModelSpec from the id. The setting, in
functions/.env, is a JSON list:

    CARDCHAT_OPENAI_COMPATIBLE=[{"id": "gateway", "base_url": "https://llm.example.com/v1",
                                 "key_secret": "GATEWAY_API_KEY", "models": ["llama-3.3-70b"]}]

`key_secret` names the Firebase secret (an env variable under the emulators)
holding the endpoint's key; `models` is optional (without it the endpoint's
`GET /models` lists them). The operator chose these URLs, so the base-URL
guard that holds a user's endpoint (providers/egress.py) does not apply:
a company's gateway on its private network is a fair choice there.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

SETTING = "CARDCHAT_OPENAI_COMPATIBLE"
#: The provider id of a user's own endpoint: setApiKey's `provider`, and the own key that answers its models.
OWN = "openai_compatible"
#: The provider id of the deployment's endpoints (no user's own key answers them).
DEPLOYED = "compatible"
_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_SECRET = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
#: A model name as endpoints spell them: `llama3.1:8b`, `meta-llama/llama-3.3-70b-instruct`.
MODEL_NAME = re.compile(r"[\w.:/@+-]{1,128}")


@dataclass(frozen=True)
class Endpoint:
    """One of the deployment's OpenAI-compatible endpoints."""

    id: str
    base_url: str
    key_env: str
    models: tuple[str, ...] = ()


def _endpoint(raw: object) -> Endpoint:
    if not isinstance(raw, dict):
        raise ValueError(f"{SETTING}: each endpoint is an object")
    eid, url, secret, names = raw.get("id"), raw.get("base_url"), raw.get("key_secret"), raw.get("models") or []
    if not isinstance(eid, str) or not _ID.fullmatch(eid):
        raise ValueError(f"{SETTING}: id must be lower-case letters, digits, - or _, not {eid!r}")
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise ValueError(f"{SETTING}: endpoint {eid}: base_url must be an http(s) URL")
    if not isinstance(secret, str) or not _SECRET.fullmatch(secret):
        raise ValueError(f"{SETTING}: endpoint {eid}: key_secret must name an env variable (UPPER_CASE)")
    if not isinstance(names, list) or not all(isinstance(n, str) and MODEL_NAME.fullmatch(n) for n in names):
        raise ValueError(f"{SETTING}: endpoint {eid}: models must be a list of model names")
    return Endpoint(eid, url.rstrip("/"), secret, tuple(names))


def endpoints(env: Mapping[str, str] | None = None) -> dict[str, Endpoint]:
    """The deployment's endpoints by id; a malformed setting raises ValueError (the deploy should stop)."""
    env = os.environ if env is None else env
    raw = env.get(SETTING, "").strip()
    if not raw:
        return {}
    try:
        listed = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"{SETTING}: not JSON ({e.msg})") from None
    if not isinstance(listed, list):
        raise ValueError(f"{SETTING}: must be a JSON list of endpoints")
    found = [_endpoint(e) for e in listed]
    return {e.id: e for e in found}


def model_id(model: str, endpoint: str | None = None) -> str:
    """The id of `model` on the deployment's `endpoint`, or (None) on the user's own."""
    return f"{DEPLOYED}:{endpoint}:{model}" if endpoint else f"{OWN}:{model}"


def parse_model_id(model_id: str) -> tuple[str | None, str] | None:
    """(endpoint id or None for the user's own, model name) of a compatible model's id; None for any other id."""
    if model_id.startswith(f"{OWN}:"):
        name = model_id[len(OWN) + 1 :]
        return (None, name) if MODEL_NAME.fullmatch(name) else None
    if model_id.startswith(f"{DEPLOYED}:"):
        endpoint, _, name = model_id[len(DEPLOYED) + 1 :].partition(":")
        return (endpoint, name) if _ID.fullmatch(endpoint) and MODEL_NAME.fullmatch(name) else None
    return None


def host_of(base_url: str) -> str:
    """The host (with a port that is not the scheme's default) a model's label names."""
    return urlsplit(base_url).netloc.rsplit("@", 1)[-1]


def label(model: str, base_url: str) -> str:
    """How a picker shows a compatible model."""
    return f"{model} (via {host_of(base_url)})"
