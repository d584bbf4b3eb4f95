"""Which cards a chat ranks, resolved through the retrieval index.

One entry point, `resolve(db, uid, card_ids=…)` or `resolve(db, uid,
query=…)`, for createChat, continueChat, branch and every follow-up: the
candidates `uid` may read, culled as `permissions.readable_cards` culls (an id
list) or as `CollectionQuery.admits` admits (a query; its `text` keeps the
cards with a positive BM25 score). `Pool.rank` ranks them exactly as
`rank.rank_cards` would; `packed_cards` then reads only the cards a budget
can hold, in ranking order, and culls them again on what it read (the index
may lag a card's edit by one trigger; a card withdrawn meanwhile is dropped
here, never packed).

Where the cards come from, so that a call reads nothing the caller did not
choose (docs/security.md, "What a chat holds"):
- `uid`'s own cards (scopes "mine", "mine_and_shared"): `uid`'s index
  (repo/retrieval_index/). A warm instance reads its head document only.
  No index yet: it is built first.
- one owner's public cards (scope "owner"): that owner's public partition,
  the same way; never their private cards, never anyone else's.
- cards shared with `uid` (scopes "shared", "mine_and_shared"): one bounded
  query per person `uid` accepted (repo/card_sources.py); a person who shares
  cards with `uid` unaccepted adds no read.
- an id list: indexed own cards from the index, the rest (others' cards,
  own cards not indexed yet) read by id and ranked from loose entries
  (their stored vectors; unembedded ones by BM25 alone).

A query's collection leaves out the cards tagged outdated (`OUTDATED_TAG`), the one place
chats, searches and MCP results drop them: a card is asked for by id (an id list keeps
it), by name (`named`, the question or the search text, names its title) or by the tag
itself (a query for that tag).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from cardchat.parsing.collection_query import CollectionQuery
from cardchat.retrieval.index_snapshot import Part, Snapshot

if TYPE_CHECKING:
    from cardchat.chat.collection import CardSource
    from cardchat.repo.db import Db
    from cardchat.retrieval.pool_ranker import PoolRanker
    from cardchat.retrieval.rank import Ranking, RankingConfig
    from cardchat.schema.documents import Card

#: Cards read for packing beyond what the budget's characters suggest (the
#: packer looks a little past the last card that fits, `background._TAIL_SCAN`).
FETCH_SLACK = 64
#: Characters a token covers at most in the packer's estimate (background._CHARS_PER_TOKEN).
CHARS_PER_TOKEN = 4.2


@dataclass
class Pool:
    """The candidates in order: `ids[i]` is row `parts[k].rows[j]` where
    `parts[k].positions[j] == i`."""

    ids: list[str]
    parts: list[Part]
    chars: np.ndarray  # int64 per candidate
    loose: dict[str, Card] = field(default_factory=dict)  # cards already read (not from the index)
    #: why a chosen source holds nothing, when the caller should be told (collection_query.OWNER_HAS_…)
    empty_reason: str | None = None
    _rows: dict[str, tuple[Snapshot, int]] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    def kept_card(self, card_id: str) -> Card | None:
        """`card_id` whole without a read: its index entry (access, tags, `updated`) with the text a
        warm instance keeps for the entry's text hash and stamp (chat/card_texts.py); None when not kept."""
        from cardchat.chat import card_texts
        from cardchat.schema.documents import stamp_time

        if self._rows is None:
            self._rows = {
                self.ids[pos]: (p.snapshot, row)
                for p in self.parts
                for pos, row in zip(p.positions.tolist(), p.rows.tolist(), strict=True)
            }
        found = self._rows.get(card_id)
        if found is None or card_id in self.loose:
            return None
        snapshot, row = found
        stamp = int(snapshot.stamps[row])
        text = card_texts.known(card_id, snapshot.hashes[row], stamp) if stamp else None
        if text is None:
            return None
        access = snapshot.cards[row]
        return replace(access, title=text[0], body=text[1], updated=stamp_time(stamp))

    def has_vector(self) -> np.ndarray:
        out = np.zeros(len(self.ids), bool)
        for p in self.parts:
            out[p.positions] = p.snapshot.has_vector[p.rows]
        return out

    def rank(self, question: str, query_vec: np.ndarray | None, config: RankingConfig | None = None) -> Ranking:
        from cardchat.retrieval.index_snapshot import rank_pool

        return rank_pool(question, query_vec, self.parts, len(self.ids), config)

    def ranker(self, config: RankingConfig | None = None) -> PoolRanker:
        """`rank` for many questions over this pool (a draft's claims): its postings gathered once."""
        from cardchat.retrieval.pool_ranker import PoolRanker

        return PoolRanker(self.parts, len(self.ids), config)

    def similarities(self, query_vec: np.ndarray) -> np.ndarray:
        """Cosine similarity per candidate (0 where there is no vector)."""
        out = np.zeros(len(self.ids), np.float64)
        for p in self.parts:
            out[p.positions] = p.snapshot.similarities(query_vec, p.rows)
        return out


def with_vectors(db: Db, uid: str, pool: Pool, cards: dict[str, Card], vectors: dict[str, np.ndarray]) -> Pool:
    """`pool` with `cards` (candidates just embedded on the spot) ranked with
    `vectors`: they leave their index rows for a loose part (snapshots are shared, never changed)."""
    from cardchat.retrieval.index_entries import make_entry
    from cardchat.retrieval.index_snapshot import from_entries

    moved = [c for c in cards if c in vectors]
    if not moved:
        return pool
    position = {c: i for i, c in enumerate(pool.ids)}
    gone = np.array([position[c] for c in moved], np.int64)
    parts = []
    for p in pool.parts:
        keep = ~np.isin(p.positions, gone)
        parts.append(Part(p.snapshot, p.rows[keep], p.positions[keep]))
    dim = int(next(iter(vectors.values())).size)
    extra = from_entries(uid, [make_entry(c, cards[c], vectors[c]) for c in moved], dim)
    parts.append(Part(extra, np.arange(len(moved), dtype=np.int64), gone))
    return _pool(pool.ids, parts, {**pool.loose, **{c: cards[c] for c in moved}}, pool.empty_reason)


def resolve(
    db: Db, uid: str, card_ids: Sequence[str] | None = None, query: CollectionQuery | None = None, named: str = ""
) -> Pool:
    """The candidates `uid` may read: EITHER `card_ids` (in their order,
    first occurrence) OR `query`'s collection (own cards in index order,
    then others' by id), outdated cards left out unless `named` names their title."""
    if (card_ids is None) == (query is None):
        raise ValueError("resolve takes card ids or a query, not both")
    if card_ids is not None:
        return _by_ids(db, uid, _own_snapshot(db, uid), list(dict.fromkeys(card_ids)))
    assert query is not None
    return _by_query(db, uid, query, named)


def resolve_source(db: Db, uid: str, source: CardSource, named: str = "") -> Pool:
    """`resolve` for a chat's source as the client sent it or chat_sources keeps it: its query, else its ids."""
    if isinstance(source, CollectionQuery):
        return resolve(db, uid, query=source, named=named)
    return resolve(db, uid, list(source))


def _own_snapshot(db: Db, uid: str, public: bool = False) -> Snapshot:
    """`uid`'s index (`public`: of their public cards), built first when missing or not current
    (another model, older terms).
    A public partition that would be empty is not built: any caller may name any uid as an owner,
    and that must not make the server write an index for each."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo.retrieval_index import reader
    from cardchat.repo.retrieval_index.rebuild import count_cards, rebuild
    from cardchat.repo.retrieval_index.shards import is_current
    from cardchat.retrieval.index_snapshot import from_entries

    embedder = get_embedder()
    loaded = reader.load(db, uid, public)
    if loaded is None or not is_current(loaded[0], embedder.model_id):
        if public and not count_cards(db, uid, public=True):
            return from_entries(uid, [], embedder.dim)
        rebuild(db, uid, public=public)
        loaded = reader.load(db, uid, public)
    assert loaded is not None
    return loaded[1]


def _by_ids(db: Db, uid: str, own: Snapshot, ids: list[str]) -> Pool:
    from cardchat.access import permissions
    from cardchat.repo import cards as card_repo

    indexed = [(i, own.row_of[c]) for i, c in enumerate(ids) if c in own.row_of]
    rest = [c for c in ids if c not in own.row_of]
    loose = permissions.readable_cards(card_repo.load_cards(db, rest), uid, rest) if rest else {}
    kept = set(loose)
    order = [c for c in ids if c in own.row_of or c in kept]
    position = {c: i for i, c in enumerate(order)}
    parts = [
        Part(
            own,
            np.array([r for _, r in indexed], np.int64),
            np.array([position[ids[i]] for i, _ in indexed], np.int64),
        )
    ]
    if loose:
        extra = _loose_snapshot(db, uid, loose)
        parts.append(Part(extra, np.arange(len(extra), dtype=np.int64), np.array([position[c] for c in loose])))
    return _pool(order, parts, loose)


def _by_query(db: Db, uid: str, query: CollectionQuery, named: str = "") -> Pool:
    """`query`'s collection: indexed parts first (own cards, or the followed owner's public
    ones, in index order), then cards shared with `uid` by id; outdated ones as `Current` keeps them."""
    from cardchat.parsing.collection_query import OWNER_HAS_NO_PUBLIC_CARDS, WITH_MINE, WITH_SHARED

    current = Current(query, named)
    indexed: list[tuple[Snapshot, np.ndarray]] = []
    reason = None
    if query.scope in WITH_MINE:
        own = _own_snapshot(db, uid)
        indexed.append((own, current.rows(own, own.admitted(query, uid))))
    if query.scope == "owner":
        assert query.owner is not None
        theirs = _own_snapshot(db, query.owner, public=True)
        indexed.append((theirs, current.rows(theirs, theirs.admitted(query, uid))))
        reason = OWNER_HAS_NO_PUBLIC_CARDS if not len(theirs) else None
    others = _shared(db, uid, query) if query.scope in WITH_SHARED else {}
    others = {c: k for c, k in others.items() if current.keeps(k)}
    order: list[str] = []
    parts = []
    for snapshot, rows in indexed:
        positions = np.arange(len(order), len(order) + len(rows), dtype=np.int64)
        parts.append(Part(snapshot, rows.astype(np.int64), positions))
        order += [snapshot.ids[r] for r in rows.tolist()]
    if others:
        extra = _loose_snapshot(db, uid, others)
        parts.append(Part(extra, np.arange(len(extra), dtype=np.int64), np.arange(len(order), len(order) + len(extra))))
        order += list(others)
    pool = _pool(order, parts, others, reason)
    return matching(pool, query.text) if query.text else pool


class Current:
    """Which of a query's cards are current: those without the outdated tag, and outdated ones the
    query asks for by that tag or whose title `named` names (retrieval/named_titles.py)."""

    def __init__(self, query: CollectionQuery, named: str) -> None:
        from cardchat.schema.documents import OUTDATED_TAG

        self.tag = OUTDATED_TAG
        self.all = query.tag == OUTDATED_TAG
        self.named = named
        self._keys: set[str] | None = None

    def keys(self) -> set[str]:
        from cardchat.retrieval.named_titles import question_keys

        if self._keys is None:
            self._keys = question_keys(self.named) if self.named else set()
        return self._keys

    def rows(self, snapshot: Snapshot, rows: np.ndarray) -> np.ndarray:
        if self.all:
            return rows
        old = snapshot.tagged(self.tag)[rows]
        if not old.any():
            return rows
        keep = ~old
        if self.keys() and len(snapshot.title_keys) == len(snapshot):
            wanted = np.fromiter((int(k, 16) for k in self.keys()), np.int64)
            keep |= np.isin(snapshot.title_keys[rows], wanted)
        kept: np.ndarray = rows[keep]
        return kept

    def keeps(self, card: Card) -> bool:
        from cardchat.retrieval.named_titles import title_key

        return self.all or self.tag not in card.tags or title_key(card.title) in self.keys()


def _shared(db: Db, uid: str, query: CollectionQuery) -> dict[str, Card]:
    """Cards shared with `uid` within `query` by the people `uid` accepted."""
    from cardchat.repo import card_sources

    sharers = card_sources.accepted_sharers(db, uid)
    return {c: k for c, k in card_sources.shared_by(db, uid, sharers).items() if query.admits(k, uid)}


def matching(pool: Pool, text: str) -> Pool:
    """The candidates with a positive BM25 score for `text` (statistics over the pool)."""
    from cardchat.retrieval.index_snapshot import sparse_scores

    lengths = np.zeros(len(pool), np.float32)
    for p in pool.parts:
        lengths[p.positions] = p.snapshot.lengths[p.rows]
    keep = sparse_scores(text, pool.parts, lengths) > 0
    new_pos = np.cumsum(keep) - 1
    parts = []
    for p in pool.parts:
        mask = keep[p.positions]
        parts.append(Part(p.snapshot, p.rows[mask], new_pos[p.positions[mask]].astype(np.int64)))
    ids = [c for c, k in zip(pool.ids, keep.tolist()) if k]
    return _pool(ids, parts, {c: pool.loose[c] for c in ids if c in pool.loose}, pool.empty_reason)


def _pool(ids: list[str], parts: list[Part], loose: dict[str, Card], empty_reason: str | None = None) -> Pool:
    chars = np.zeros(len(ids), np.int64)
    for p in parts:
        chars[p.positions] = p.snapshot.chars[p.rows]
    return Pool(ids, parts, chars, dict(loose), empty_reason)


def _loose_snapshot(db: Db, uid: str, cards: dict[str, Card]) -> Snapshot:
    """Entries made on the spot for cards read directly, with their stored vectors."""
    from cardchat.embeddings import get_embedder
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.repo import embeddings as emb_repo
    from cardchat.retrieval.index_entries import make_entry
    from cardchat.retrieval.index_snapshot import from_entries

    embedder = get_embedder()
    hashes = {c: embeddable_and_hash(k.title, k.body)[1] for c, k in cards.items()}
    vectors = emb_repo.load_embeddings(db, hashes, embedder.model_id)
    entries = [make_entry(c, k, vectors.get(c)) for c, k in cards.items()]
    return from_entries(uid, entries, embedder.dim)


def packed_cards(
    db: Db, uid: str, pool: Pool, order: Sequence[int], budget_tokens: int, margin: float = 1.15
) -> tuple[list[tuple[str, Card]], bool]:
    """The best-ranked candidates a `budget_tokens` background can hold (by
    their characters, `margin` times over), read and culled again
    (`permissions.readable_cards`), in ranking order; and whether that is all of them."""
    from cardchat.access import permissions
    from cardchat.chat import card_texts
    from cardchat.repo import cards as card_repo

    want_chars = budget_tokens * CHARS_PER_TOKEN * margin
    ranked = [pool.ids[i] for i in order]
    cumulative = np.cumsum(pool.chars[np.asarray(order, np.int64)]) if len(order) else np.zeros(0)
    end = min(len(ranked), int(np.searchsorted(cumulative, want_chars, side="right")) + 1 + FETCH_SLACK)
    out: list[tuple[str, Card]] = []
    start = 0
    while start < len(ranked):
        chunk = ranked[start:end]
        missing = [c for c in chunk if c not in pool.loose]
        read = card_repo.load_cards(db, missing) if missing else {}
        card_texts.remember(read.items())
        found = {**read, **{c: pool.loose[c] for c in chunk if c in pool.loose}}
        out += list(permissions.readable_cards(found, uid, chunk).items())
        # Cards gone or withdrawn since they were indexed leave a gap: read further to fill it.
        if sum(len(k.title) + len(k.body) for _, k in out) >= want_chars:
            break
        start, end = end, min(len(ranked), end + max(FETCH_SLACK, end - start))
    return out, end >= len(ranked)
