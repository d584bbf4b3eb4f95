"""The words of chats as a search index stores them, and how a search ranks what it finds.

A reader's index (schema/chat_search.ChatSearchHead / ChatSearchShard) keeps, per term, the
messages holding it as postings "{chat key}.{message index}". A term is stored by a hash
(`term_key`), in one of SHARDS shards by that hash, so a search of k terms reads the head and
at most k shards, never a message it will not show: its work grows with the postings of its
terms, not with the number of chats. Terms are BM25's (retrieval/bm25.py: lowercase, compound
parts, stop words out), so a search finds what the card ranker would.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from cardchat.retrieval.bm25 import tokenize

#: Shards of one reader's index: 1,000 chats of 20 messages fill each to a few hundred kB.
SHARDS = 64
#: Terms of one search at most (the rest are ignored): each may read a shard.
MAX_QUERY_TERMS = 16
#: Characters of a passage either side of the first match.
PASSAGE_CONTEXT = 90
#: A chat's key in postings: the first characters of its (random) id, longer on a clash.
CHAT_KEY_LENGTHS = (8, 12, 20)


def terms(text: str) -> list[str]:
    """The distinct terms of `text`, in order of first appearance."""
    return list(dict.fromkeys(tokenize(text or "")))


def term_key(term: str) -> str:
    """How the index names a term: a field name that never needs quoting, and no word as written."""
    return "t" + hashlib.sha256(term.encode("utf-8")).hexdigest()[:14]


def shard_of(key: str) -> int:
    return int(key[1:5], 16) % SHARDS


def posting(chat_key: str, message_index: int) -> str:
    return f"{chat_key}.{message_index}"


def parse_posting(p: str) -> tuple[str, int]:
    chat_key, _, index = p.rpartition(".")
    return chat_key, int(index)


def postings_by_shard(chat_key: str, messages: Iterable[tuple[int, str]]) -> dict[int, dict[str, list[str]]]:
    """{shard: {term key: [postings]}} of `messages` ((index, text)) of the chat keyed `chat_key`."""
    out: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for index, text in messages:
        for term in terms(text):
            key = term_key(term)
            out[shard_of(key)][key].append(posting(chat_key, index))
    return out


def chat_key(chat_id: str, taken: Mapping[str, str]) -> str:
    """The key `chat_id` has (or gets) in an index whose keys map to chats as `taken` says."""
    for n in CHAT_KEY_LENGTHS:
        key = "c" + chat_id[:n]  # a field name that never needs quoting
        if taken.get(key, chat_id) == chat_id:
            return key
    return "c" + chat_id


@dataclass(frozen=True)
class Hit:
    chat_key: str
    message_index: int | None  # None: the chat's title matched
    score: float


def rank(
    query_terms: Sequence[str], found: Mapping[str, Sequence[str]], titles: Mapping[str, str], limit: int, per_chat: int
) -> list[Hit]:
    """The best messages and titles for `query_terms`, given each term's postings (`found`, by term) and
    the chats' titles (by chat key): more of the terms first, rarer terms weighing more; at most
    `per_chat` hits of one chat."""
    matched: dict[str, int] = defaultdict(int)
    weights: dict[str, float] = defaultdict(float)
    for term in query_terms:
        hits = set(found.get(term) or ())
        weight = 1.0 / (1.0 + math.log1p(len(hits)))
        for p in hits:  # by the posting as stored: parsed only for the hits kept below
            matched[p] += 1
            weights[p] += weight
    best = sorted(matched, key=lambda p: (-matched[p], -weights[p], p))[: limit * per_chat + limit]
    scores: dict[tuple[str, int | None], tuple[int, float]] = {parse_posting(p): (matched[p], weights[p]) for p in best}
    wanted = set(query_terms)
    for ck, title in titles.items():
        in_title = wanted & set(terms(title))
        if in_title:  # a title match counts above any one message of the chat
            scores[(ck, None)] = (len(in_title), len(in_title) + 0.5)
    order = sorted(scores.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0][0], kv[0][1] or -1))
    out: list[Hit] = []
    taken: dict[str, int] = defaultdict(int)
    for (ck, index), (_, score) in order:
        if taken[ck] < per_chat:
            taken[ck] += 1
            out.append(Hit(ck, index, round(score, 4)))
            if len(out) == limit:
                break
    return out


def passage(text: str, query_terms: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """A short passage of `text` around its first match of a query term, and where each match in
    it begins and ends (the SPA marks them)."""
    if not query_terms:
        return text[: 2 * PASSAGE_CONTEXT], []
    words = sorted(query_terms, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    first = pattern.search(text)
    if first is None:
        return text[: 2 * PASSAGE_CONTEXT].strip(), []
    start = max(0, first.start() - PASSAGE_CONTEXT)
    end = min(len(text), first.end() + PASSAGE_CONTEXT)
    while start > 0 and not text[start - 1].isspace() and first.start() - start < PASSAGE_CONTEXT + 20:
        start -= 1
    while end < len(text) and not text[end].isspace() and end - first.end() < PASSAGE_CONTEXT + 20:
        end += 1
    lead, tail = ("…" if start > 0 else ""), ("…" if end < len(text) else "")
    body = " ".join(text[start:end].split())
    shown = lead + body + tail
    return shown, [(m.start(), m.end()) for m in pattern.finditer(shown)]
