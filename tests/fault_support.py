"""What the fault tests share: the state a generator leaves when it dies
mid-answer, and a count of the RPCs a Firestore client sends.

Imported by the tests as `from fault_support import ...` (pytest puts tests/
on sys.path).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from google.cloud import firestore

from cardchat.repo import messages as repo
from cardchat.schema import StreamChunk

#: The Firestore API calls that read or write documents (what Firestore bills).
BILLED_RPCS = (
    "run_query",
    "run_aggregation_query",
    "batch_get_documents",
    "get_document",
    "list_documents",
    "commit",
    "batch_write",
    "begin_transaction",
)


def die_mid_answer(db: firestore.Client, message_id: str, lease_expires: datetime, texts: list[str]) -> str:
    """What a generator killed mid-answer leaves, written through the store
    adapter as the engine writes it: the message claimed by a run that holds
    a lease until `lease_expires`, and its first chunks. Returns the run id."""
    run_id = "dead-run"
    msg = repo.claim(db, message_id, run_id, lease_expires)
    assert msg is not None, "the answer was not ready to be claimed"
    for i, text in enumerate(texts):
        chunk = StreamChunk(
            chat=msg["chat"], message=message_id, message_index=msg["message_index"], index=i, content=text
        )
        repo.write_chunk(db, message_id, run_id, chunk)
    return run_id


class RpcCount:
    """Counts the calls `db` makes to the Firestore API while it is in effect
    (the client's generated API object, wrapped per method)."""

    def __init__(self, db: firestore.Client) -> None:
        self.api: Any = db._firestore_api
        self.calls: Counter[str] = Counter()
        self._saved: dict[str, Any] = {}

    def __enter__(self) -> RpcCount:
        for name in BILLED_RPCS:
            original = getattr(self.api, name)
            self._saved[name] = original

            def counted(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
                self.calls[_name] += 1
                return _original(*args, **kwargs)

            setattr(self.api, name, counted)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self._saved.items():
            setattr(self.api, name, original)
