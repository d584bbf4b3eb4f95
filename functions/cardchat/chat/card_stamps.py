"""What the re-check before an answer (chat/recheck.py) knows of a chat's packed cards without
reading them: the retrieval indexes, whose entries hold each card's access fields and its
`updated_stamp` as of the card's last write (the card-write trigger applies every write to them).

- The chat owner's own cards: the owner's index (a warm instance reads its head alone, and the
  turn's ranking reads it anyway). An own card stays readable to its owner; one that is gone from
  the index (deleted) is read, and so withdrawn.
- Another person's cards: their public partition (repo/retrieval_index/), when it costs fewer
  reads than the cards it vouches for (its head, and on a cold instance its shards, against
  one read a card). It holds public cards only: a card made private leaves it, is read, and is
  withdrawn if the owner lost it.
- A card neither vouches for (a private card shared with the owner, a shard written before stamps
  were kept, a person with fewer packed cards than shards) is read, as before.

A stamp as indexed that differs from the chat's (ChatBackground.card_updated) is an edit: the card is
read whole and re-packed (chat/edited_cards.py). The index trails a write by its trigger: an edit
or a deletion made while an answer starts is seen by the next one.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from cardchat.schema.documents import Card, stamp_time

if TYPE_CHECKING:
    from cardchat.repo.db import Db
    from cardchat.retrieval.index_snapshot import Snapshot


def vouched(db: Db, owner: str, card_ids: list[str], owners: list[str]) -> dict[str, Card]:
    """Access fields and `updated` of the cards of `card_ids` (packed from cards of `owners`,
    aligned; "" unknown) that the indexes vouch for, as `card_repo.load_access(updated=True)`
    would read them; the rest are not in the answer."""
    from cardchat.repo.retrieval_index import reader

    ids = [c for c in card_ids if c]
    out: dict[str, Card] = {}
    own = reader.load(db, owner)
    if own is not None:
        out |= _known(own[1], ids)
    others = Counter(o for c, o in zip(card_ids, owners, strict=False) if c and o and o != owner and c not in out)
    for other, count in others.items():
        theirs = _public_partition(db, other, count)
        if theirs is not None:
            out |= _known(theirs, [c for c in ids if c not in out])
    return out


def _public_partition(db: Db, other: str, count: int) -> Snapshot | None:
    """`other`'s public partition, when reading it costs fewer reads than `count` of their cards."""
    from cardchat.repo.retrieval_index import reader
    from cardchat.repo.retrieval_index.shards import read_head

    head = read_head(db, other, public=True)
    if head is None or len(head["shards"]) >= count:
        return None
    loaded = reader.load(db, other, public=True, head=head)
    return loaded[1] if loaded is not None else None


def _known(snapshot: Snapshot, ids: list[str]) -> dict[str, Card]:
    out: dict[str, Card] = {}
    for c in ids:
        row = snapshot.row_of.get(c)
        if row is None or not snapshot.stamps[row]:
            continue
        access = snapshot.cards[row]
        out[c] = Card(
            "",
            "",
            snapshot.owner,
            access.visibility,
            list(access.viewers),
            updated=stamp_time(int(snapshot.stamps[row])),
        )
    return out
