"""batchget decodes what the SDK decodes, against the real emulator.

The fast reader leans on the client's GAPIC layer and raw protobufs; these
tests compare it with `DocumentSnapshot.to_dict()` on every Firestore value
type, so a client upgrade that changes either side fails here."""

import math
from datetime import datetime, timezone

import pytest
from google.cloud.firestore import GeoPoint
from google.cloud.firestore_v1.vector import Vector

from cardchat.repo import batchget

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
    "timestamp": datetime(2026, 12, 2, 18, 30, 5, 123456, tzinfo=timezone.utc),
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


def test_missing_ids_are_left_out_and_masks_apply(db):
    for i in range(3):
        db.collection("batchget").document(f"d{i}").set({"title": f"T{i}", "body": "b" * i, "owner": "u"})

    got = dict(batchget.batch_get(db, "batchget", ["d2", "nope", "d0", "d1"], field_paths=["title", "owner"]))

    assert got == {f"d{i}": {"title": f"T{i}", "owner": "u"} for i in range(3)}
    assert list(batchget.batch_get(db, "batchget", [])) == []


def test_counts_every_id_asked(db):
    before = batchget.documents_requested()
    list(batchget.batch_get(db, "batchget", ["a", "b", "c"]))
    assert batchget.documents_requested() - before == 3


def test_a_field_path_that_needs_quoting_is_refused(db):
    with pytest.raises(ValueError, match="quoting"):
        list(batchget.batch_get(db, "batchget", ["a"], field_paths=["has space"]))
