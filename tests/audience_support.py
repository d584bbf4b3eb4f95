"""common/audiences.json as the tests read it: who may read each field of each collection, and the
one walk that says which field paths of a document it does not declare."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TABLE: dict[str, Any] = json.loads((ROOT / "common" / "audiences.json").read_text())
COLLECTION_NAMES: dict[str, str] = json.loads((ROOT / "common" / "collections.json").read_text())["collections"]
#: Lowest first: a reader of one audience reads what every lower one reads.
AUDIENCES: list[str] = TABLE["audiences"]
RANK = {a: n for n, a in enumerate(AUDIENCES)}


def entry(key: str) -> dict[str, Any]:
    return TABLE["collections"][key]


def fields(key: str) -> dict[str, dict[str, Any]]:
    """A client-readable collection's declared fields ({} for a server-only one)."""
    return entry(key).get("fields") or {}


def floor(key: str) -> str:
    """The lowest audience of any field of the collection: the rules let that reader get the document."""
    e = entry(key)
    return e["audience"] if "audience" in e else min((f["audience"] for f in e["fields"].values()), key=RANK.get)


def key_of(name: str) -> str:
    """The table's key of a collection by its stored name (chat_background_parts is stored as `parts`)."""
    by_name = {v: k for k, v in COLLECTION_NAMES.items()}
    return by_name.get(name, name)


def undeclared(key: str, data: dict[str, Any], prefix: str = "") -> list[str]:
    """Field paths of `data` (a document of collection `key`) that the table does not declare: a path
    is declared when it or a map holding it is; a map is walked into when a field under it is declared,
    and is declared when null."""
    declared = fields(key)
    out = []
    for name, value in data.items():
        path = f"{prefix}{name}"
        if any(path == d or path.startswith(d + ".") for d in declared):
            continue
        holds_declared = any(d.startswith(path + ".") for d in declared)
        if value is None and holds_declared:
            continue  # an absent map (a question's `usage`) holds nothing
        if isinstance(value, dict) and holds_declared:
            out += undeclared(key, value, path + ".")
        else:
            out.append(path)
    return out
