"""Firestore adapter for answer requests (schema/messages.py AnswerRequest): what fires
generateAnswer. Every commit that makes an answer `ready` (a new turn, a branch, a retry, the
sweeper's re-drive) adds one through `add_if_ready`; the trigger watches their creation only,
so an answer costs one trigger event, not one per write to its message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.cloud import firestore

from cardchat.ids import answer_request_id
from cardchat.schema.messages import ANSWER_REQUESTS, AnswerRequest


def needs_run(fields: Mapping[str, Any]) -> bool:
    """A message written with these fields waits for a run (an answer stub, or one set back to `ready`)."""
    return fields.get("status") == "ready" and fields.get("role", "assistant") == "assistant"


def add_if_ready(
    writer: firestore.WriteBatch | firestore.Transaction,
    db: firestore.Client,
    message_id: str,
    fields: Mapping[str, Any],
) -> None:
    """In the commit writing `fields` to the message: a request for its run when they make it `ready`."""
    if needs_run(fields):
        ref = db.collection(ANSWER_REQUESTS).document(answer_request_id(message_id))
        writer.create(ref, AnswerRequest(message=message_id).to_dict())


def remove(db: firestore.Client, request_id: str) -> None:
    """Its run ended (or found nothing to do): the request has served; its deletion fires nothing."""
    db.collection(ANSWER_REQUESTS).document(request_id).delete()
