"""What listModels offers a caller: the models with a key, the deployment's or
their own, each compatible endpoint's as its `GET /models` lists them (cached:
providers/compatible.py), shown as "model (via host)".

An endpoint that does not answer its list is left out of this answer and
logged (its host only): the other models are still offered.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from cardchat.llm import compatible, models
from cardchat.llm.models import ModelSpec
from cardchat.providers.base import ProviderError

if TYPE_CHECKING:
    from cardchat.repo.db import Db

log = logging.getLogger(__name__)


def _listed(url: str, key: str, provider: str) -> list[str]:
    from cardchat.providers.compatible import list_models

    try:
        return list_models(url, key, provider)
    except ProviderError as e:
        log.warning("listModels: %s endpoint %s refused: %s", provider, compatible.host_of(url), e.detail)
    except Exception as e:  # the endpoint's failure is no failure of the listing
        log.warning("listModels: %s endpoint %s failed: %s", provider, compatible.host_of(url), type(e).__name__)
    return []


def _deployed() -> list[ModelSpec]:
    """The deployment's endpoints' models that the setting does not name, from their lists."""
    import os

    found: list[ModelSpec] = []
    for endpoint in compatible.endpoints().values():
        key = os.environ.get(endpoint.key_env, "").strip()
        if endpoint.models or not key:
            continue
        names = _listed(endpoint.base_url, key, compatible.DEPLOYED)
        found += [models.compatible_spec(n, endpoint) for n in names]
    return found


def _own(db: Db, uid: str) -> list[ModelSpec]:
    from cardchat.access.own_keys import endpoint_for

    found = endpoint_for(db, uid)
    if found is None:
        return []
    url, key = found
    return [models.compatible_spec(n, base_url=url) for n in _listed(url, key, compatible.OWN)]


def listing(db: Db, uid: str | None, own_keys: frozenset[str]) -> dict[str, Any]:
    """listModels' answer: the models (`own_key`: answered on the caller's own key), and the default."""
    offered = models.available_models(own_keys=own_keys) + _deployed()
    if uid and compatible.OWN in own_keys:
        offered += _own(db, uid)
    default = models.default_model_id(own_keys=own_keys)
    if default == models.OFFLINE_MODEL_ID:
        # a caller whose only model is their own endpoint's chats with it by default
        default = next((m.id for m in offered if m.key_env), default)
    return {"models": [dict(m.public(), own_key=m.provider in own_keys) for m in offered], "default": default}
