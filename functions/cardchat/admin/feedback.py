"""`python -m cardchat feedback --since 7d [--csv]`: the rated answers, for
an admin reviewing answer quality: when, rating, model,
comment, the question, and the ids of the cards the answer cited."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from cardchat.generation.claims import citations
from cardchat.repo import chats as chats_repo
from cardchat.repo import feedback as feedback_repo
from cardchat.repo import messages as messages_repo

if TYPE_CHECKING:
    from cardchat.repo.db import Db

COLUMNS = ("updated", "rating", "model", "comment", "question", "cited_card_ids", "chat", "message")
_SINCE = re.compile(r"^(\d+)([dh])$")


def parse_since(text: str, now: datetime) -> datetime:
    """ "7d", "12h", or a date (YYYY-MM-DD, UTC)."""
    m = _SINCE.match(text.strip())
    if m:
        n = int(m.group(1))
        return now - (timedelta(days=n) if m.group(2) == "d" else timedelta(hours=n))
    try:
        day = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"--since: {text!r} is not like 7d, 12h or 2026-01-31") from None
    return day if day.tzinfo else day.replace(tzinfo=now.tzinfo)


@dataclass
class Row:
    updated: str
    rating: str
    model: str
    comment: str
    question: str
    cited_card_ids: str
    chat: str
    message: str


def rows(db: Db, since: datetime) -> list[Row]:
    """One row per rating given or changed since `since`, oldest first."""
    return [_row(db, message_id, fb) for message_id, fb in feedback_repo.rated_since(db, since)]


def _row(db: Db, message_id: str, fb: dict[str, Any]) -> Row:
    chat_id = str(fb.get("chat") or "")
    messages = messages_repo.chat_messages(db, chat_id)  # gone with a deleted chat: the row says so
    answer = next((m for mid, m in messages if mid == message_id), None)
    index = answer.message_index if answer else 0
    question = next((m.content for _, m in messages if m.message_index == index - 1), "")
    card_ids = list((chats_repo.get_private(db, chat_id) or {}).get("card_ids") or [])
    cited = [card_ids[n - 1] for n in citations(answer.content if answer else "", card_ids)]
    updated = fb.get("updated")
    return Row(
        updated=updated.isoformat(timespec="seconds") if isinstance(updated, datetime) else str(updated or ""),
        rating=str(fb.get("rating") or ""),
        model=str(fb.get("model") or (answer.model if answer else "") or ""),
        comment=str(fb.get("comment") or ""),
        question=question if answer else "(answer deleted)",
        cited_card_ids=" ".join(cited),
        chat=chat_id,
        message=message_id,
    )


def as_csv(found: list[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in found:
        writer.writerow([getattr(r, c) for c in COLUMNS])
    return out.getvalue()


def as_table(found: list[Row], width: int = 40) -> str:
    """Aligned columns for a terminal; long text cut to `width` characters."""
    if not found:
        return "no rated answers in that period\n"

    def cell(value: str) -> str:
        flat = " ".join(value.split())
        return flat if len(flat) <= width else flat[: width - 1] + "\u2026"

    table = [list(COLUMNS)] + [[cell(getattr(r, c)) for c in COLUMNS] for r in found]
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in table]
    ups = sum(r.rating == "up" for r in found)
    lines.append(f"{len(found)} rated answers: {ups} up, {len(found) - ups} down")
    return "\n".join(lines) + "\n"
