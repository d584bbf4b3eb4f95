"""common/audiences.json against the collections and the schema dataclasses: every collection is
declared, every client-readable one names the dataclass the server writes it through, and that
dataclass has exactly the fields the table declares (a field added on one side only fails here)."""

from __future__ import annotations

import dataclasses
import importlib
import types
import typing
from typing import Any

import pytest
from audience_support import AUDIENCES, COLLECTION_NAMES, TABLE, entry, fields

READABLE = sorted(k for k, e in TABLE["collections"].items() if "fields" in e)
#: Fields written by the SPA alone, or added by a dataclass's to_dict: no dataclass field holds them.
NOT_IN_DATACLASS = ("client", "to_dict")


def _nested(hint: Any) -> type | None:
    """The dataclass a field holds (Usage of `usage: Usage | None`), if any."""
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    return next((o for o in options if dataclasses.is_dataclass(o)), None)


def dataclass_paths(cls: type, prefix: str = "") -> set[str]:
    """Field paths of a schema dataclass, a nested dataclass's fields as `outer.inner`."""
    hints = typing.get_type_hints(cls)
    out: set[str] = set()
    for f in dataclasses.fields(cls):
        inner = _nested(hints[f.name])
        out |= dataclass_paths(inner, f"{prefix}{f.name}.") if inner else {prefix + f.name}
    return out


def schema_class(key: str) -> type:
    module, name = entry(key)["schema"].split(".")
    return getattr(importlib.import_module(f"cardchat.schema.{module}"), name)


def test_every_collection_is_declared_and_nothing_else():
    assert sorted(set(COLLECTION_NAMES) - set(TABLE["collections"])) == [], "collections the table does not declare"
    assert sorted(set(TABLE["collections"]) - set(COLLECTION_NAMES)) == [], "declared collections that do not exist"


def test_every_field_has_a_known_audience_and_a_source_and_a_background_field_says_why():
    for key, e in TABLE["collections"].items():
        if "audience" in e:
            assert e["audience"] == "server" and e.get("why"), key
            continue
        for path, f in e["fields"].items():
            assert f["audience"] in AUDIENCES and f.get("source"), f"{key}.{path}"
            assert not f.get("background") or f.get("why"), f"{key}.{path} is derived from the background: why"


def test_a_collection_s_fields_share_one_audience():
    # Firestore rules are per document: a field above its document's lowest audience is read by that audience.
    for key in READABLE:
        assert len({f["audience"] for f in fields(key).values()}) == 1, (key, fields(key))


@pytest.mark.parametrize("key", READABLE)
def test_the_schema_dataclass_holds_exactly_the_declared_fields(key):
    if entry(key)["schema"] is None:
        pytest.fail(f"{key} is client-readable but written through no schema dataclass")
    declared = {p for p, f in fields(key).items() if f.get("writer") not in NOT_IN_DATACLASS}
    held = dataclass_paths(schema_class(key))
    assert sorted(held - declared) == [], f"{key}: dataclass fields the table does not declare"
    assert sorted(declared - held) == [], f"{key}: declared fields the dataclass does not hold"
