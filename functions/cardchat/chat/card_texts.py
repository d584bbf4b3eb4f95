"""Card text a warm instance keeps, by (card id, text hash, `updated` stamp).

The retrieval index gives every card's text hash and stamp, so a card whose (id, hash, stamp) is
held here is known current without a read. (The hash alone would not do: it is of the embeddable
text, which leaves Markdown out, so a card edited only there keeps its hash.) A follow-up's
candidates (generation/turn_context.py) are taken from here when createChat or an earlier turn
read them. Access is never taken from here: it comes with the index entry, as for every ranked
card. Bounded (least recently used leave first) and shared by the threads of a process behind a lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

from cardchat.schema.documents import Card, updated_stamp

#: Cards' texts kept per process: a few collections' worth of candidates, a few MB.
MAX_TEXTS = 4_000

_texts: OrderedDict[tuple[str, str, int], tuple[str, str]] = OrderedDict()
_lock = threading.Lock()


def _key(card_id: str, card: Card) -> tuple[str, str, int]:
    from cardchat.embeddings.text import text_hash

    return card_id, text_hash(card.title, card.body), updated_stamp(card)


def remember(cards: Iterable[tuple[str, Card]]) -> None:
    """Keep the title and body of each (id, card) just read whole."""
    keyed = [(_key(c, k), (k.title, k.body)) for c, k in cards]
    with _lock:
        for key, text in keyed:
            _texts[key] = text
            _texts.move_to_end(key)
        while len(_texts) > MAX_TEXTS:
            _texts.popitem(last=False)


def known(card_id: str, text_hash: str, stamp: int) -> tuple[str, str] | None:
    """(title, body) of `card_id` when its text hash is `text_hash` and its `updated` stamp `stamp`, if kept."""
    key = (card_id, text_hash, stamp)
    with _lock:
        text = _texts.get(key)
        if text is not None:
            _texts.move_to_end(key)
        return text


def clear() -> None:
    with _lock:
        _texts.clear()
