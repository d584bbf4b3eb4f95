"""firestore.indexes.json keeps every index a query needs and no index on bulk text.

The server's queries are checked as they run: conftest.py records every query the tests make
(index_usage.py) and fails the session if one touches an exempted field. Here: that check itself,
the SPA's queries (read from its source, since they run in the browser), and the overrides' shape.
"""

from __future__ import annotations

import json
import re

import index_usage
import pytest

ROOT = index_usage.ROOT
COLLECTIONS: dict[str, str] = json.loads((ROOT / "common" / "collections.json").read_text())["collections"]

#: Fields that hold a card's or an answer's text, a vector, a packed shard or thousands of ids:
#: indexing them would cost an index entry per value (an array) or per write, for no query.
BULK_FIELDS = {
    ("cards", "body"),
    ("chat_messages", "content"),
    ("chat_messages_streaming", "content"),
    ("parts", "text"),
    ("answer_feedback", "comment"),
    ("card_embeddings", "vector"),
    ("retrieval_index_shards", "data"),
    ("chat_private", "card_ids"),
    ("chat_sources", "card_ids"),
    ("chat_search_shards", "p"),
    ("chat_search", "chats"),
    ("chat_search_messages", "ids"),
    ("collections", "card_ids"),
    ("collections", "instructions"),
}

#: Sequential values written with every chunk or message and never queried by range.
SEQUENTIAL_FIELDS = {("chat_messages", "timestamp"), ("chat_messages_streaming", "timestamp")}


def test_bulk_text_and_sequential_fields_are_exempt() -> None:
    assert index_usage.exempted() >= BULK_FIELDS | SEQUENTIAL_FIELDS


def test_every_override_names_a_collection_the_product_writes() -> None:
    groups = {o["collectionGroup"] for o in json.loads(index_usage.INDEXES.read_text())["fieldOverrides"]}
    assert groups <= set(COLLECTIONS.values())


def test_no_composite_index_is_declared_twice() -> None:
    declared = [json.dumps(i, sort_keys=True) for i in json.loads(index_usage.INDEXES.read_text())["indexes"]]
    assert len(declared) == len(set(declared))


@pytest.mark.emulator
def test_a_query_on_an_exempted_field_is_a_breach(db) -> None:
    """The session check can fail: a query on chat text, serialised by the library as it would be
    sent, names the exempted field; a query the product makes does not."""
    on_text = db.collection(COLLECTIONS["chat_messages"]).where("content", "==", "x").order_by("message_index")
    on_chat = db.collection(COLLECTIONS["chat_messages"]).where("chat", "==", "c").order_by("message_index")
    exempt = index_usage.exempted()

    def breaches(query) -> list[str]:
        return index_usage.breaches(index_usage.fields_of(index_usage.unrecorded(query)), exempt)

    assert breaches(on_text) == ["chat_messages.content"]
    assert breaches(on_chat) == []
    list(on_chat.stream())  # the recorder saw it run
    assert ("chat_messages", "chat") in index_usage.seen


def _groups(text: str) -> set[str]:
    """Collections a piece of SPA source names (`cards()` is cardqueries' shorthand for one)."""
    groups = {COLLECTIONS[n] for n in re.findall(r"COLLECTIONS\.(\w+)", text)}
    return groups | ({"cards"} if re.search(r"\bcards\(\)", text) else set())


def _spa_queries() -> set[tuple[str, str]]:
    """(collection, field) of each where/orderBy in the SPA: a statement's own collections, else
    (a query built on a `base` passed in) every collection its file names."""
    used: set[tuple[str, str]] = set()
    for path in (ROOT / "web" / "src").rglob("*.ts"):
        if path.name.endswith(".test.ts"):
            continue
        text = path.read_text()
        for statement in re.split(r";\s*\n", text):
            fields = set(re.findall(r"(?:where|orderBy)\(\s*'([\w.]+)'", statement))
            groups = _groups(statement) or _groups(text)
            used |= {(g, f) for g in groups for f in fields}
    return used


def test_the_spa_queries_keep_their_indexes() -> None:
    used = _spa_queries()
    assert {("chats", "last_updated"), ("cards", "title"), ("cards", "updated")} <= used  # the scan finds them
    assert index_usage.breaches(used, index_usage.exempted()) == []
