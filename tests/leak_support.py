"""The leak hunt's tools (tests/access/test_leak_hunt.py): reads that go through the rules (the
Firestore emulator's REST API with a reader's ID token, or none), what each reader read, and the one
scanner that looks through all of it for what no reader may obtain."""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from audience_support import fields, undeclared
from conftest import APP_PROJECT

WINDOW = 40  # characters of a card's text that, found anywhere a reader reads, are a leak


def _decode(value: dict[str, Any]) -> Any:
    """A Firestore REST value as plain JSON (timestamps and bytes as strings)."""
    kind, raw = next(iter(value.items()))
    if kind == "mapValue":
        return {k: _decode(v) for k, v in (raw.get("fields") or {}).items()}
    if kind == "arrayValue":
        return [_decode(v) for v in raw.get("values") or []]
    if kind == "integerValue":
        return int(raw)
    if kind == "bytesValue":
        return base64.b64decode(raw).hex()
    return raw  # string, double, boolean, null, timestamp, reference, geo point


def _rest(path: str, token: str | None, body: dict | None = None) -> tuple[int, Any]:
    host = os.environ["FIRESTORE_EMULATOR_HOST"]
    url = f"http://{host}/v1/projects/{APP_PROJECT}/databases/(default)/documents{path}"
    headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers=headers, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, None


def rest_get(doc_path: str, token: str | None) -> dict[str, Any] | None:
    """A document as the reader gets it through the rules; None when denied or missing."""
    status, out = _rest(f"/{doc_path}", token)
    return {k: _decode(v) for k, v in (out.get("fields") or {}).items()} if status == 200 else None


def _filter(field_path: str, op: str, value: str) -> dict[str, Any]:
    return {"fieldFilter": {"field": {"fieldPath": field_path}, "op": op, "value": {"stringValue": value}}}


def rest_query(parent: str, name: str, where: tuple[str, str, str], token: str | None) -> list[tuple[str, dict]]:
    """(id, data) of the documents a filtered query gives the reader; [] when the rules deny it."""
    query = {"structuredQuery": {"from": [{"collectionId": name}], "where": _filter(*where), "limit": 200}}
    status, out = _rest(f"{'/' + parent if parent else ''}:runQuery", token, query)
    if status != 200:
        return []
    docs = [r["document"] for r in out if "document" in r]
    return [(d["name"].rsplit("/", 1)[1], {k: _decode(v) for k, v in (d.get("fields") or {}).items()}) for d in docs]


@dataclass
class Reader:
    """One kind of reader: its uid (None for a signed-out visitor), ID token, audience of the chats it reads."""

    name: str
    uid: str | None
    token: str | None
    own_chats: set[str] = field(default_factory=set)  # chats this reader owns: their sizes are theirs
    own_cards: set[str] = field(default_factory=set)  # cards this reader chose: never a leak to them


@dataclass
class Read:
    """What a reader obtained: a document (collection key set) or a callable's / MCP tool's answer."""

    reader: Reader
    source: str  # "get chats/ID", "query chat_messages chat==ID", "callable searchChats", "mcp get_chat"
    data: Any
    collection: str | None = None  # the table's key, for a document
    card_read: bool = False  # a card read as a card (rules or card endpoints), not through a chat


@dataclass
class Secrets:
    """What no reader may obtain, computed with the admin SDK from the server-only documents."""

    cards: dict[str, dict[str, Any]]  # uncited packed card id -> {title, texts, visible_to: set of uids}
    emails: set[str]
    phrases: set[str]  # a saved collection's query words and instructions
    sizes: dict[str, set[int]]  # chat id -> its background's token counts and input tokens
    counts: dict[str, set[int]]  # chat id -> its counts of cards


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, leaf) of a JSON value; a map's keys are leaves too (public_citations is keyed by number)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield f"{path}.{k}#key", k
            yield from leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}[{i}]")
    else:
        yield path, value


def _windows(text: str) -> set[str]:
    return {text[i : i + WINDOW] for i in range(max(1, len(text) - WINDOW + 1))}


def card_leaks(read: Read, secrets: Secrets) -> list[str]:
    """An uncited packed card's id, title or 40 characters of its text, wherever the reader got them; a
    card read as a card that the reader may see anyway, or one the reader chose, is not a leak."""
    out = []
    me = read.reader
    for cid, card in secrets.cards.items():
        if cid in me.own_cards or (read.card_read and (me.uid in card["visible_to"] or "*" in card["visible_to"])):
            continue
        windows = set().union(*(_windows(t) for t in card["texts"]))
        for path, leaf in leaves(read.data):
            if not isinstance(leaf, str):
                continue
            if cid in leaf or card["title"] in leaf:
                out.append(f"{me.name} | {read.source} | {path} | card {cid} ({card['title']!r})")
            elif any(leaf[i : i + WINDOW] in windows for i in range(max(0, len(leaf) - WINDOW + 1))):
                out.append(f"{me.name} | {read.source} | {path} | text of card {cid}")
    return out


def other_leaks(read: Read, secrets: Secrets) -> dict[str, list[str]]:
    """The owner's email, a collection's query or instructions, a size or count of another's background."""
    found: dict[str, list[str]] = {"email": [], "collection": [], "size": []}
    me, where = read.reader, f"{read.reader.name} | {read.source}"
    sizes = set().union(*(v for c, v in secrets.sizes.items() if c not in me.own_chats))
    counts = set().union(*(v for c, v in secrets.counts.items() if c not in me.own_chats))
    # A reader's own document declares its own counts: small numbers, which another chat's may equal.
    own = isinstance(read.data, dict) and me.uid is not None and read.data.get("owner") == me.uid
    for path, leaf in leaves(read.data):
        if isinstance(leaf, str):
            found["email"] += [f"{where} | {path} | {e}" for e in secrets.emails if e.lower() in leaf.lower()]
            found["collection"] += [f"{where} | {path} | {p!r}" for p in secrets.phrases if p in leaf]
        elif isinstance(leaf, int) and not isinstance(leaf, bool):
            if leaf in sizes:
                found["size"].append(f"{where} | {path} | {leaf}, a background's size")
            elif leaf in counts and "card" in path.rsplit(".", 1)[-1] and not own:
                found["size"].append(f"{where} | {path} | {leaf}, a count of a background's cards")
    return found


def undeclared_fields(read: Read) -> list[str]:
    """Field paths of a document read that common/audiences.json does not declare, or declares above the
    reader (a document of a collection the reader's audience may not read at all)."""
    if read.collection is None:
        return []
    where = f"{read.reader.name} | {read.source}"
    if not fields(read.collection):
        return [f"{where} | the whole document: {read.collection} is server-only"]
    return [f"{where} | {p}" for p in undeclared(read.collection, read.data)]
