"""The leak hunt: the richest chat the real callables can build (leak_flow.py), then every kind of
reader but its owner reads all the rules and endpoints give them, and one scanner looks through it for
what the hidden-background promise keeps from them (leak_support.py): an uncited packed card's id,
title or text, the owner's email, a saved collection's query or instructions, a size of another's
background, and any document field common/audiences.json does not declare. A failure names the
reader, the collection or callable, the field path and what leaked."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from audience_support import COLLECTION_NAMES, TABLE, key_of
from conftest import APP_PROJECT, CallError, _clear_firestore
from google.cloud.firestore import FieldFilter
from leak_flow import INSTRUCTIONS, SEARCH_QUERY, TAG, Flow, SearchingServer, build, private
from leak_support import Read, Reader, Secrets, card_leaks, other_leaks, rest_get, rest_query, undeclared_fields

from cardchat.schema.documents import CARDS, CHAT_BACKGROUNDS, CHAT_MESSAGES, Card

pytestmark = pytest.mark.functions

#: Documents read as cards: a reader who may read a card as such learns nothing from getting it.
CARD_KEYS = {"cards"}
#: Every top-level collection the table declares (by its stored name), one it declares before it exists included.
TOP_LEVEL = [
    COLLECTION_NAMES.get(k, k) for k in TABLE["collections"] if k not in ("chat_background_parts", "rate_windows")
]


def doc_reads(reader: Reader, flow: Flow) -> list[Read]:
    """Every get and filtered query of every collection a reader could try, through the rules."""
    uid, chats = reader.uid, list(flow.chats.values())
    ids = chats + flow.answers + ([uid, *(f"{c}_{uid}" for c in chats)] if uid else [])
    gets = [f"{n}/{i}" for n in TOP_LEVEL for i in ids]
    gets += [f"{CHAT_BACKGROUNDS}/{c}/{COLLECTION_NAMES['chat_background_parts']}/0000" for c in chats]
    gets += (
        [f"{COLLECTION_NAMES['rate_limits']}/{uid}/{COLLECTION_NAMES['rate_windows']}/{w}" for w in ("search", "mcp")]
        if uid
        else []
    )
    filters = [("chat", "EQUAL", c) for c in chats] + [("visibility", "EQUAL", "public")]
    filters += [("owner", "EQUAL", uid), ("viewer", "EQUAL", uid), ("viewers", "ARRAY_CONTAINS", uid)] if uid else []
    queries = [(n, f) for n in TOP_LEVEL for f in filters]

    def get(path: str) -> list[Read]:
        data = rest_get(path, reader.token)
        key = key_of(path.split("/")[-2])
        return [] if data is None else [Read(reader, f"get {path}", data, key, key in CARD_KEYS)]

    def query(q: tuple[str, tuple[str, str, str]]) -> list[Read]:
        name, (f, op, v) = q
        found = rest_query("", name, (f, op, v), reader.token)
        key = key_of(name)
        return [Read(reader, f"query {name} {f}=={v} -> {i}", d, key, key in CARD_KEYS) for i, d in found]

    with ThreadPoolExecutor(8) as pool:
        return [r for rs in pool.map(get, gets) for r in rs] + [r for rs in pool.map(query, queries) for r in rs]


def callable_reads(reader: Reader, flow: Flow, call) -> list[Read]:
    """Every callable a reader may call about what it reads; a refusal's error is read as well."""
    o = flow.people["owner"].uid
    asks: list[tuple[str, dict[str, Any], bool]] = [
        ("listModels", {}, False),
        ("searchChats", {"text": "tides"}, False),
        ("searchChats", {"text": "harbour"}, False),
        ("searchCards", {"text": "tides moon harbour", "scope": "mine_and_shared"}, True),
        ("searchCards", {"text": "chain sourdough", "scope": "owner", "owner": o}, True),
        ("relatedCards", {"card_id": f"{o}_bikes", "scope": "owner", "owner": o}, True),
        ("findOverlaps", {"query": {"scope": "mine_and_shared"}}, True),
        ("findOverlaps", {"query": {"scope": "owner", "owner": o}}, True),
        (
            "checkDraft",
            {"text": "The moon pulls the tides into the harbour.", "query": {"scope": "mine_and_shared"}},
            True,
        ),
        (
            "checkDraft",
            {"text": "A sourdough chain keeps its starter fed.", "query": {"scope": "owner", "owner": o}},
            True,
        ),
    ]
    asks += [("suggestFollowups", {"message_id": m}, False) for m in flow.answers]
    asks += [("continueChat", {"chat_id": flow.chats["branch"]}, False)]
    out = []
    for name, data, card_read in asks:
        try:
            answer: Any = call(name, data, reader.token)
        except CallError as e:
            answer, card_read = {"error": {"status": e.status, "message": e.message, "details": e.details}}, False
        out.append(Read(reader, f"callable {name} {data}", answer, None, card_read))
    return out


def mcp_reads(reader: Reader, flow: Flow, functions_base: str, token: str) -> list[Read]:
    """A viewer's personal access token on every MCP tool."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    calls = [("list_chats", {}), ("search_cards", {"query": "tides moon harbour", "scope": "mine_and_shared"})]
    calls += [("get_chat", {"chat_id": c}) for c in flow.chats.values()]
    calls += [("get_card", {"id": c}) for c in flow.deck]

    async def run() -> list[Read]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
        out = []
        async with Client(
            streamable_http_client(f"{functions_base}/mcp", http_client=http, terminate_on_close=False)
        ) as c:
            for name, args in calls:
                result = (await c.call_tool(name, args)).model_dump(mode="json")
                out.append(Read(reader, f"mcp {name} {args}", result, None, name in ("search_cards", "get_card")))
        return out

    return asyncio.run(run())


COUNTS = ("card_count_requested", "cards_considered", "cards_packed", "cards_by_others", "cards_changed", "cards_cut")
USAGE = ("input_tokens", "cached_input_tokens", "cache_write_tokens")


def chat_secrets(db, chat_id: str, copied: bool) -> tuple[set[str], set[str], set[int], set[int]]:
    """(packed, cited, sizes, counts) of one chat, read with the admin SDK from its server-only and
    owner-only documents; a continued chat's answers are copies numbered as its source's: none cited here."""
    p = private(db, chat_id)
    ids = list(p.get("card_ids") or [])
    background = db.collection(CHAT_BACKGROUNDS).document(chat_id).get().to_dict() or {}
    packed = {c for c in ids if c} | set(background.get("card_updated") or {})
    packed |= {a["card"] for t in p.get("context_turns") or [] for a in t.get("added") or []}
    of_chat = FieldFilter("chat", "==", chat_id)
    messages = [d.to_dict() for d in db.collection(CHAT_MESSAGES).where(filter=of_chat).get()]
    complete = [m for m in messages if m.get("status") == "complete"]
    cited = set() if copied else {ids[n - 1] for m in complete for n in m.get("sources") or [] if 0 < n <= len(ids)}
    usage = [m.get("usage") or {} for m in messages]
    usage += [d.to_dict().get("usage") or {} for d in db.collection("answer_usage").where(filter=of_chat).get()]
    sizes = {p.get("background_tokens"), background.get("tokens")} | {u.get(k) for u in usage for k in USAGE}
    counts = {p.get(k) for k in COUNTS} | {len(packed)}
    return packed, cited, _positive(sizes), _positive(counts)


def _positive(values: set[Any]) -> set[int]:
    return {v for v in values if isinstance(v, int) and not isinstance(v, bool) and v > 0}


def secrets_of(db, flow: Flow) -> Secrets:
    """What no reader may obtain: the flow's cards that no complete answer cites (each with every text
    it held and who may read it as a card), the owner's and sharer's emails, the saved collection's
    query and instructions, and each chat's sizes and counts."""
    packed, cited, sizes, counts = set(), set(), {}, {}
    for role, chat_id in flow.chats.items():
        p, c, sizes[chat_id], counts[chat_id] = chat_secrets(db, chat_id, copied=role == "continued")
        packed, cited = packed | p, cited | c
    now_as = {cid: Card.from_dict(db.collection(CARDS).document(cid).get().to_dict() or {}) for cid in flow.deck}
    cards = {
        cid: {
            "title": flow.deck[cid].title,
            "texts": flow.texts[cid],
            "visible_to": {"*"} if c.visibility == "public" else {c.owner, *c.viewers},
            "packed": cid in packed,
        }
        for cid, c in now_as.items()
        if cid not in cited
    }
    emails = {flow.people[r].email for r in ("owner", "sharer")}
    return Secrets(cards, emails, {INSTRUCTIONS, TAG}, sizes, counts)


@pytest.fixture(scope="module")
def hunt(firestore_host, functions_base, call, sign_up):
    """(flow, secrets, reads): the flow built once, then read by every kind of reader."""
    from google.cloud import firestore

    _clear_firestore(firestore_host, APP_PROJECT)
    db = firestore.Client(project=APP_PROJECT)
    server = SearchingServer()
    flow = build(db, call, sign_up, server)
    who = flow.people
    readers = [
        Reader("signed-out visitor", None, None),
        Reader("viewer", who["viewer"].uid, who["viewer"].token),
        Reader("continuing user", who["continuer"].uid, who["continuer"].token, {flow.chats["continued"]}),
        Reader("signed-in stranger", who["stranger"].uid, who["stranger"].token),
    ]
    reads = []
    for r in readers:
        reads += doc_reads(r, flow) + callable_reads(r, flow, call)
    token = call("createAccessToken", {"label": "viewer's laptop"}, who["viewer"].token)["token"]
    reads += mcp_reads(Reader("viewer's MCP token", who["viewer"].uid, None), flow, functions_base, token)
    flow.found = server.results
    yield flow, secrets_of(db, flow), reads
    server.close()
    db.close()


def test_the_flow_packs_uncited_cards_of_every_kind_and_the_readers_read_the_chat(hunt):
    flow, secrets, reads = hunt
    o, s = flow.people["owner"].uid, flow.people["sharer"].uid
    uncited = {cid for cid, c in secrets.cards.items() if c["packed"]}
    assert {f"{o}_bread", f"{o}_bikes", f"{s}_orchids", f"{s}_vault"} <= uncited  # private, public, shared, withdrawn
    assert len(secrets.cards) < len(flow.deck)  # some cards are cited
    sources = {r.source for r in reads}
    for reader in ("signed-out visitor", "viewer", "continuing user", "signed-in stranger"):
        assert any(r.reader.name == reader and r.source == f"get chats/{flow.chats['source']}" for r in reads), reader
    assert any(src.startswith("mcp get_card") for src in sources)


def test_an_answer_searched_and_what_it_found_but_did_not_cite_is_kept_from_every_reader(hunt):
    flow, secrets, reads = hunt
    chat_id = flow.chats["searched"]
    p = private(_db(), chat_id)
    (turn,) = p["context_turns"]
    found = [a["card"] for a in turn["added"] if a.get("searched")]
    assert len(found) >= 3 and len(flow.found) == 1  # one search, several cards found ...
    uncited = {cid for cid, c in secrets.cards.items() if c["packed"]}
    # ... the first cited; of the rest, those no other chat cites are secrets the hunt looks for
    assert found[0] not in uncited and set(found[1:]) & uncited
    usage = _db().collection("answer_usage").where(filter=FieldFilter("chat", "==", chat_id)).get()
    assert [u.get("card_searches") for u in usage] == [1]
    said = [r for r in reads if chat_id in r.source]
    assert said and not [r.source for r in said if SEARCH_QUERY in str(r.data) or "search_cards" in str(r.data)]


def _db():
    from google.cloud import firestore

    return firestore.Client(project=APP_PROJECT)


def _report(found: list[str]) -> str:
    return "\n" + "\n".join(sorted(set(found)))


def test_no_reader_obtains_an_uncited_packed_card(hunt):
    _, secrets, reads = hunt
    found = [leak for r in reads for leak in card_leaks(r, secrets)]
    assert found == [], _report(found)


@pytest.mark.parametrize(
    "kind",
    [
        "email",  # of the owner or of a sharer
        "collection",  # a saved collection's query or instructions
        "size",  # a size or count of a background not the reader's
    ],
)
def test_no_reader_obtains_what_is_not_theirs(hunt, kind):
    _, secrets, reads = hunt
    found = [leak for r in reads for leak in other_leaks(r, secrets)[kind]]
    assert found == [], _report(found)


def test_every_document_read_holds_only_fields_the_table_declares(hunt):
    _, _, reads = hunt
    found = [leak for r in reads for leak in undeclared_fields(r)]
    assert found == [], _report(found)
