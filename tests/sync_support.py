"""Speaking to syncCards over HTTP, for the endpoint's tests and the sync client's, and what a
sync wrote."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from typing import Any

from google.cloud.firestore import FieldFilter

from cardchat.schema.card_syncs import CARD_SYNC_PATHS, CARD_SYNC_RUNS, CARD_SYNCS
from cardchat.schema.documents import CARDS


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def entry(path: str, text: str, send: bool = True) -> dict[str, Any]:
    """A file as the client lists it: its text only when `send`."""
    return {"path": path, "sha256": sha(text), **({"markdown": text} if send else {})}


def post_sync(
    url: str, body: Any, token: str | None, raw: bytes | None = None, method: str = "POST"
) -> tuple[int, dict]:
    """(status, JSON answer) of one request to syncCards."""
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    data = raw if raw is not None else json.dumps(body).encode() if method == "POST" else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def written(db: Any, owner: str) -> dict[str, Any]:
    """Every document a sync writes of `owner` (cards, records, path index, runs), by path, with
    its update time: equal before and after what must write nothing."""
    out = {}
    for name in (CARDS, CARD_SYNCS, CARD_SYNC_PATHS, CARD_SYNC_RUNS):
        query = db.collection(name).where(filter=FieldFilter("owner", "==", owner)).select([])
        out.update({s.reference.path: s.update_time for s in query.stream()})
    return out
