"""Many documents by id, decoded straight from the wire.

createChat reads every card of a collection (10,000 of them) on each call.
Through `Client.get_all` most of that cost was Python per document: proto-plus
field access, the deep copy `DocumentSnapshot.to_dict()` makes, and gRPC's
hand-off of each streamed message from its polling thread to ours (a lock
round trip per document). Here the same BatchGetDocuments call goes through a
GAPIC client of the SDK's own kind (its retry, timeout and routing headers),
on a channel built like the SDK's but with gRPC's SingleThreadedUnaryStream
option, which reads a server stream on the calling thread; and each
response's raw protobuf is decoded once into plain values: several times faster
for a large collection on the emulator (`scripts/bench create_chat`).

The values are the SDK's: `tests/repo/test_batchget.py` reads a document holding
every Firestore value type both ways and requires equal results, so a client
upgrade that changes either side fails there. Rare types (references, geo
points, vectors, BSON) are handed to the SDK's own decoder.

The channel and request are built from private attributes of the SDK's
Client (PRIVATE_ATTRIBUTES), checked on VERIFIED_SDK. A client lacking any of
them is read through the SDK's own `Client.get_all` instead (slower, same
results), and the process logs once that it does; `tests/repo/test_batchget_sdk.py`
fails when the pinned SDK differs from VERIFIED_SDK, so an upgrade is
re-verified rather than silently slowed down.
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import grpc
from google.api_core.datetime_helpers import DatetimeWithNanoseconds
from google.cloud.firestore_v1 import _helpers
from google.cloud.firestore_v1.types import common
from google.cloud.firestore_v1.types import firestore as firestore_types

if TYPE_CHECKING:
    from google.cloud import firestore

_SIMPLE_FIELD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# The SDK's own channel options (unbounded messages, keepalive), plus ours.
_CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", -1),
    ("grpc.max_receive_message_length", -1),
    ("grpc.keepalive_time_ms", 30000),
    (grpc.experimental.ChannelOptions.SingleThreadedUnaryStream, 1),
]

#: The google-cloud-firestore release this module was verified on.
VERIFIED_SDK = "2.34.1"
#: What the fast path reads from `firestore.Client`: none of it is public API.
PRIVATE_ATTRIBUTES = (
    "_emulator_host",
    "_target",
    "_credentials",
    "_client_options",
    "_rpc_metadata",
    "_database_string",
)

log = logging.getLogger("cardchat")
_apis: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_lock = threading.Lock()
_requested = 0
_fallbacks_logged: set[tuple[str, ...]] = set()


def documents_requested() -> int:
    """Documents asked for by id since the process started (tests count reads with it)."""
    return _requested


def _missing_attributes(db: firestore.Client) -> tuple[str, ...]:
    """The private attributes the fast path needs that `db` lacks; each
    distinct lack is logged once, with the SDK's version."""
    missing = tuple(a for a in PRIVATE_ATTRIBUTES if not hasattr(db, a))
    if missing:
        with _lock:
            first = missing not in _fallbacks_logged
            _fallbacks_logged.add(missing)
        if first:
            from importlib.metadata import version

            log.warning(
                "batchget: google-cloud-firestore %s (verified on %s) has no Client.%s; "
                "reading through Client.get_all instead",
                version("google-cloud-firestore"),
                VERIFIED_SDK,
                ", Client.".join(missing),
            )
    return missing


def _get_all(
    db: firestore.Client, firestore_collection: str, ids: Sequence[str], field_paths: Sequence[str] | None
) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """The slow path: the SDK's own BatchGetDocuments and decoding."""
    col = db.collection(firestore_collection)
    for snap in db.get_all([col.document(i) for i in ids], field_paths=field_paths):
        yield snap.id, (snap.to_dict() if snap.exists else None)


def _bulk_api(db: firestore.Client) -> Any:
    """A GAPIC Firestore client for `db`'s database on a channel of its own,
    made once per `db`."""
    with _lock:
        api = _apis.get(db)
        if api is None:
            from google.cloud.firestore_v1.services.firestore import FirestoreClient
            from google.cloud.firestore_v1.services.firestore.transports.grpc import FirestoreGrpcTransport

            if db._emulator_host is not None:
                channel = grpc.insecure_channel(db._emulator_host, options=_CHANNEL_OPTIONS)
            else:
                channel = FirestoreGrpcTransport.create_channel(
                    db._target, credentials=db._credentials, options=_CHANNEL_OPTIONS
                )
            transport = FirestoreGrpcTransport(host=db._target, channel=channel)
            api = FirestoreClient(transport=transport, client_options=db._client_options)
            _apis[db] = api
        return api


def _array(v: Any, client: Any) -> list[Any]:
    return [decode_value(x, client) for x in v.array_value.values]


def _map(v: Any, client: Any) -> Any:
    fields = v.map_value.fields
    if "__type__" in fields:
        return _helpers.decode_value(v, client)  # a vector or a BSON type: the SDK knows them
    return {k: decode_value(x, client) for k, x in fields.items()}


_DECODE: dict[str | None, Callable[[Any, Any], Any]] = {
    "string_value": lambda v, c: v.string_value,
    "integer_value": lambda v, c: v.integer_value,
    "double_value": lambda v, c: v.double_value,
    "boolean_value": lambda v, c: v.boolean_value,
    "null_value": lambda v, c: None,
    "bytes_value": lambda v, c: v.bytes_value,
    "timestamp_value": lambda v, c: DatetimeWithNanoseconds.from_timestamp_pb(v.timestamp_value),  # type: ignore[no-untyped-call]
    "array_value": _array,
    "map_value": _map,
}


def decode_value(v: Any, client: Any) -> Any:
    """A raw `google.firestore.v1.Value` protobuf as the SDK would return it."""
    decode = _DECODE.get(v.WhichOneof("value_type"))
    if decode is None:
        return _helpers.decode_value(v, client)
    return decode(v, client)


def decode_fields(fields: Any, client: Any) -> dict[str, Any]:
    return {k: decode_value(v, client) for k, v in fields.items()}


def batch_get(
    db: firestore.Client,
    firestore_collection: str,
    ids: Sequence[str],
    field_paths: Sequence[str] | None = None,
) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """(id, data) for each of `ids` in `firestore_collection`, in the order the server
    answers; data is None for a document that does not exist. One
    BatchGetDocuments stream: the caller batches, and resumes a broken stream
    with the ids it has not had an answer for."""
    global _requested
    if not ids:
        return
    with _lock:
        _requested += len(ids)
    for path in field_paths or ():
        if not _SIMPLE_FIELD.fullmatch(path):
            raise ValueError(f"field path {path!r} would need quoting: not supported here")
    if _missing_attributes(db):
        yield from _get_all(db, firestore_collection, ids, field_paths)
        return
    prefix = f"{db._database_string}/documents/{firestore_collection}/"
    request = firestore_types.BatchGetDocumentsRequest(
        database=db._database_string,
        documents=[prefix + i for i in ids],
    )
    if field_paths is not None:
        request.mask = common.DocumentMask(field_paths=list(field_paths))
    cut = len(prefix)
    responses = _bulk_api(db).batch_get_documents(request=request, metadata=db._rpc_metadata)
    for response in responses:
        pb = firestore_types.BatchGetDocumentsResponse.pb(response)
        result = pb.WhichOneof("result")
        if result == "found":
            doc = pb.found
            yield doc.name[cut:], decode_fields(doc.fields, db)
        elif result == "missing":
            yield pb.missing[cut:], None
