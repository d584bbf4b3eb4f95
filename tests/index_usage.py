"""Which fields the product's Firestore queries filter or order on, seen while the tests run.

firestore.indexes.json exempts large or never-queried fields from single-field indexing
(`fieldOverrides` with no indexes). A query that filters or orders on an exempted field works on
the emulator, which enforces no index, and fails in production. So every query any test makes
through google-cloud-firestore is recorded here (its collection group and the fields of its
filters and orders) and, when the session ends, checked against the overrides: one exempted field
in one recorded query fails the run. The SPA's queries are read from its source instead
(tests/test_index_overrides.py), since they run in the browser.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
INDEXES = ROOT / "firestore.indexes.json"

#: (collection group, field) of every query made so far.
seen: set[tuple[str, str]] = set()


def exempted(indexes: dict[str, Any] | None = None) -> set[tuple[str, str]]:
    """(collection group, field) pairs whose single-field indexes the overrides remove."""
    data = indexes if indexes is not None else json.loads(INDEXES.read_text())
    return {(o["collectionGroup"], o["fieldPath"]) for o in data.get("fieldOverrides", []) if not o.get("indexes")}


def _filter_fields(pb: Any) -> Iterator[str]:
    """Field paths of a StructuredQuery.Filter, composite filters included."""
    kind = pb._pb.WhichOneof("filter_type") if pb is not None else None
    if kind == "composite_filter":
        for sub in pb.composite_filter.filters:
            yield from _filter_fields(sub)
    elif kind == "field_filter":
        yield pb.field_filter.field.field_path
    elif kind == "unary_filter":
        yield pb.unary_filter.field.field_path


def fields_of(structured_query: Any) -> set[tuple[str, str]]:
    """(collection group, field) pairs a StructuredQuery filters or orders on, document ids aside."""
    groups = [s.collection_id for s in structured_query.from_]
    fields = set(_filter_fields(structured_query.where if structured_query._pb.HasField("where") else None))
    fields |= {o.field.field_path for o in structured_query.order_by}
    fields.discard("__name__")
    return {(g, f.strip("`")) for g in groups for f in fields}


def breaches(used: Iterable[tuple[str, str]], exempt: set[tuple[str, str]]) -> list[str]:
    """Each used field whose index an override removes, as `group.field`, sorted."""
    return sorted(f"{g}.{f}" for g, f in set(used) & exempt)


def unrecorded(query: Any) -> Any:
    """A query's StructuredQuery, serialised without being recorded as one the product made."""
    from google.cloud.firestore_v1.base_query import BaseQuery

    serialise = getattr(BaseQuery._to_protobuf, "unrecorded", BaseQuery._to_protobuf)
    return serialise(query)


def install() -> None:
    """Wraps the library's query serialiser (every query, count and listener passes through it)."""
    from google.cloud.firestore_v1.base_query import BaseQuery

    original = BaseQuery._to_protobuf
    if getattr(original, "_records_fields", False):
        return

    def recording(self: BaseQuery) -> Any:
        pb = original(self)
        seen.update(fields_of(pb))
        return pb

    recording._records_fields = True  # type: ignore[attr-defined]
    recording.unrecorded = original  # type: ignore[attr-defined]
    BaseQuery._to_protobuf = recording  # type: ignore[method-assign]
