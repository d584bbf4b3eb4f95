"""batchget decodes what the SDK decodes, against the real emulator.

The fast reader leans on the client's GAPIC layer and raw protobufs; these
tests compare it with `DocumentSnapshot.to_dict()` on every Firestore value
type, so a client upgrade that changes either side fails here."""

import contextlib
import math
import socket
import threading
from datetime import UTC, datetime

import pytest
from google.cloud import firestore
from google.cloud.firestore import GeoPoint
from google.cloud.firestore_v1.vector import Vector

from cardchat.repo import batchget
from cardchat.repo.cards import load_cards
from cardchat.schema.documents import CARDS, Card

pytestmark = pytest.mark.emulator

EVERY_TYPE = {
    "null": None,
    "true": True,
    "false": False,
    "int": 42,
    "big_negative": -(2**63),
    "double": 2.5,
    "infinity": math.inf,
    "string": "naïve café — 日本語 ✓",
    "empty_string": "",
    "bytes": b"\x00\x01\xfe\xff",
    "timestamp": datetime(2026, 12, 2, 18, 30, 5, 123456, tzinfo=UTC),
    "array": [1, "two", 3.0, {"four": [4]}, None],
    "empty_array": [],
    "map": {"nested": {"deeper": ["x", {"y": b"z"}]}, "n": 1},
    "empty_map": {},
    "geo": GeoPoint(52.37, 4.89),
    "vector": Vector([0.25, -1.0, 3.5]),
}


def test_every_value_type_decodes_as_the_sdk_decodes_it(db):
    ref = db.collection("batchget").document("all-types")
    ref.set(EVERY_TYPE | {"reference": db.collection("cards").document("c1")})
    expected = ref.get().to_dict()

    got = dict(batchget.batch_get(db, "batchget", ["all-types"]))["all-types"]

    assert got == expected
    assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}
    assert got["timestamp"].tzinfo is not None
    assert got["reference"].path == "cards/c1"


def test_missing_ids_answer_none_and_masks_apply(db):
    for i in range(3):
        db.collection("batchget").document(f"d{i}").set({"title": f"T{i}", "body": "b" * i, "owner": "u"})

    got = dict(batchget.batch_get(db, "batchget", ["d2", "nope", "d0", "d1"], field_paths=["title", "owner"]))

    assert got == {f"d{i}": {"title": f"T{i}", "owner": "u"} for i in range(3)} | {"nope": None}
    assert list(batchget.batch_get(db, "batchget", [])) == []


def test_counts_every_id_asked(db):
    before = batchget.documents_requested()
    list(batchget.batch_get(db, "batchget", ["a", "b", "c"]))
    assert batchget.documents_requested() - before == 3


def test_a_field_path_that_needs_quoting_is_refused(db):
    with pytest.raises(ValueError, match="quoting"):
        list(batchget.batch_get(db, "batchget", ["a"], field_paths=["has space"]))


class CuttingProxy:
    """A TCP proxy in front of the emulator that breaks its first connection
    once `cut_after` bytes have come back from the server: a real broken
    stream, as a connection reset or a server going away gives one."""

    def __init__(self, upstream: str, cut_after: int) -> None:
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.cut_after = cut_after
        self.connections = 0
        self.cuts = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            first = self.connections == 0
            self.connections += 1
            server = socket.create_connection(self.upstream)
            threading.Thread(target=self._pump, args=(client, server, None), daemon=True).start()
            threading.Thread(
                target=self._pump, args=(server, client, self.cut_after if first else None), daemon=True
            ).start()

    def _pump(self, src: socket.socket, dst: socket.socket, cut_after: int | None) -> None:
        sent = 0
        try:
            while data := src.recv(65536):
                dst.sendall(data)
                sent += len(data)
                if cut_after is not None and sent >= cut_after:
                    self.cuts += 1
                    break
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()


def test_a_stream_broken_midway_is_resumed_with_the_unanswered_ids(db, firestore_host, monkeypatch):
    body = "tides and the moon " * 100  # ~2 KB a card: 300 of them take several hundred KB
    writer = db.bulk_writer()
    for i in range(300):
        writer.set(db.collection(CARDS).document(f"c{i:03d}"), Card(f"T{i}", body, "u").to_dict())
    writer.close()
    proxy = CuttingProxy(firestore_host, cut_after=150_000)
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", proxy.address)
    through_proxy = firestore.Client(project=db.project)
    ids = [f"c{i:03d}" for i in range(300)] + ["missing"]
    before = batchget.documents_requested()
    try:
        cards = load_cards(through_proxy, ids)
    finally:
        proxy.close()
    assert proxy.cuts == 1 and proxy.connections >= 2  # the first stream really broke
    assert list(cards) == ids[:300] and cards["c123"].title == "T123"
    asked_again = batchget.documents_requested() - before - len(ids)
    assert 0 < asked_again < len(ids)  # only what had not been answered
