"""Reading cards from disk and deciding what an import writes.

Two sources: a folder of Markdown files (read by cardchat/parsing/markdown_notes.py,
as syncCards reads them; id from the file's relative path) or a JSON export
`{"cards": [...]}`. Every card is validated before anything is written: one
bad card and the import writes nothing, and the error names the file, the
card and the field.

An import never takes a card over. `--owner` owns every card it imports, and
a card whose file names another owner is refused: the file and the operator
disagree about whose card it is, and either guess is costly (moving someone's
card, or sharing the new owner's card with viewers chosen by the old one).
Every card lands in its owner's namespace (ids.own_card_id: `<uid>_<id>`), the
ids firestore.rules lets only that owner create: a file's id is kept when it
already is one there (an export read back) or names the owner's card from
before namespaces, else it is put there. A card id that (all the same) exists
under another owner refuses the whole import,
before anything is written, so a half-done import never has to be untangled;
the writes themselves carry preconditions (repo.card_writes), so a card created or
changed by someone else after that check stops the import instead of being
overwritten.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from cardchat import ids
from cardchat.parsing import card_validity, markdown_notes
from cardchat.schema.documents import Card, Visibility, now

if TYPE_CHECKING:
    from cardchat.repo.db import Db

_CONTENT_FIELDS = ("title", "body", "owner", "visibility", "viewers", "tags")
#: Records one problem of the card being validated: (field, why).
Complain = Callable[[str, str], None]


class CardImportError(ValueError):
    """Invalid input or a refused takeover; `problems` lists every one found,
    each naming where. `written`: cards already written when it stopped (only
    a concurrent change found at write time leaves it above 0)."""

    def __init__(self, problems: list[str], written: int = 0) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems
        self.written = written


@dataclass
class SourceCard:
    """A card as read, before validation; `where` names it in errors."""

    where: str
    data: Any  # untrusted: anything the file held, validated by validate()


@dataclass
class ParsedCard:
    id: str
    card: Card
    given_created: bool
    given_updated: bool
    where: str = ""


@dataclass
class Plan:
    """What an upsert will do: new and changed cards to write, unchanged skipped."""

    writes: list[tuple[str, Card]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def slug_id(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower()
    return s[:100] or "card"


def read_markdown_folder(folder: Path) -> list[SourceCard]:
    out = []
    for path in sorted(folder.rglob("*.md")):
        rel = path.relative_to(folder)
        note = markdown_notes.read_note(path.read_text(encoding="utf-8"))
        meta = dict(note.meta, body=note.body, tags=note.tags)
        if note.title is not None:
            meta["title"] = note.title
        meta.setdefault("id", slug_id(str(rel.with_suffix(""))))
        out.append(SourceCard(str(rel), meta))
    return out


def read_json_export(path: Path) -> list[SourceCard]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise CardImportError([f"{path}: not a readable JSON export: {e}"]) from e
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise CardImportError([f'{path}: expected {{"cards": [...]}}'])
    return [
        SourceCard(f"{path.name} card #{i}" + (f" ({c.get('id')!r})" if isinstance(c, dict) else ""), c)
        for i, c in enumerate(data["cards"])
    ]


def read_source(path: Path) -> list[SourceCard]:
    if path.is_dir():
        return read_markdown_folder(path)
    if path.is_file():
        return read_json_export(path)
    raise CardImportError([f"{path}: no such file or folder"])


def _valid_id(cid: Any) -> str | None:
    if not isinstance(cid, str) or not cid:
        return "must be a non-empty string"
    if "/" in cid or cid in (".", "..") or re.fullmatch(r"__.*__", cid):
        return "is not a valid Firestore document id (no '/', '.', '..' or __name__)"
    if len(cid.encode()) > 1500:
        return "is longer than 1500 bytes"
    return None


def _date(value: Any) -> datetime:
    if isinstance(value, datetime):
        d = value
    elif isinstance(value, str):
        d = datetime.fromisoformat(value)
    else:
        raise ValueError("not an ISO-8601 string")
    return d if d.tzinfo else d.replace(tzinfo=UTC)


def validate(sources: list[SourceCard], owner: str | None = None, visibility: str | None = None) -> list[ParsedCard]:
    """Cards ready to write, or CardImportError listing every problem.
    `owner` (--owner) owns every card; `visibility` fills in cards that do not say."""
    problems: list[str] = []
    parsed: list[ParsedCard] = []
    seen: dict[str, str] = {}
    for src in sources:
        if not isinstance(src.data, dict):
            problems.append(f"{src.where}: not an object")
            continue

        def bad(fld: str, why: str, where: str = src.where) -> None:
            problems.append(f"{where}: field '{fld}' {why}")

        card = _parse_card(src.data, src.where, owner, visibility, seen, bad)
        if card is not None:
            parsed.append(card)
    if problems:
        raise CardImportError(problems)
    return parsed


def _parse_card(
    d: dict[str, Any], where: str, owner: str | None, visibility: str | None, seen: dict[str, str], bad: Complain
) -> ParsedCard | None:
    """One source card, or None after telling `bad` every problem it has."""
    problems: list[str] = []

    def complain(fld: str, why: str) -> None:
        problems.append(fld)
        bad(fld, why)

    cid = _card_id(d.get("id"), where, seen, complain)
    card_owner = _owner(d.get("owner"), owner, complain)
    fields: dict[str, Any] = {
        "title": d.get("title"),
        "body": d.get("body"),
        "visibility": d.get("visibility") or visibility or "private",
        # a single tag or viewer may be given as a string
        **{fld: [d[fld]] if isinstance(d.get(fld), str) else d.get(fld) or [] for fld in ("viewers", "tags")},
    }
    for fld, why in card_validity.problems(fields):  # the one definition, shared with the rules and the SPA
        complain(fld, why)
    dates = _dates(d, complain)
    if problems or cid is None or card_owner is None:
        return None
    stamp = now()
    card = Card(
        title=str(fields["title"]).strip(),
        body=str(fields["body"]),
        owner=card_owner,
        visibility=cast(Visibility, fields["visibility"]),
        viewers=list(fields["viewers"]),
        tags=list(fields["tags"]),
        created=dates.get("created", stamp),
        updated=dates.get("updated", dates.get("created", stamp)),
    )
    return ParsedCard(cid, card, "created" in dates, "updated" in dates, where)


def _card_id(raw: Any, where: str, seen: dict[str, str], complain: Complain) -> str | None:
    """A valid id not used by an earlier card of the same import (`seen`: id → where)."""
    why = _valid_id(raw)
    if why is not None or not isinstance(raw, str):
        complain("id", why or "must be a non-empty string")
        return None
    if raw in seen:
        complain("id", f"{raw!r} repeats {seen[raw]}")
        return None
    seen[raw] = where
    return raw


def _dates(d: dict[str, Any], complain: Complain) -> dict[str, datetime]:
    """created and updated, where given."""
    dates: dict[str, datetime] = {}
    for fld in ("created", "updated"):
        if d.get(fld) is None:
            continue
        try:
            dates[fld] = _date(d[fld])
        except ValueError:
            complain(fld, f"is not an ISO-8601 date: {d[fld]!r}")
    return dates


def _owner(named: Any, cli_owner: str | None, bad: Complain) -> str | None:
    """`--owner` owns every card; a card naming someone else is an error."""
    if cli_owner:
        if named and named != cli_owner:
            bad(
                "owner",
                f"says {named!r} but --owner is {cli_owner!r}: remove the line, or import it "
                f"with --owner {named!r} (an import does not move a card to another owner)",
            )
        return cli_owner
    if not isinstance(named, str) or not named:
        bad("owner", "is missing (give it in the card or with --owner)")
        return None
    return named


def namespace(parsed: list[ParsedCard], older_owners: dict[str, str]) -> None:
    """Each card's id into its owner's namespace, in place; `older_owners` (id → owner)
    holds the stored cards of ids outside every namespace: the owner's is kept."""
    seen: dict[str, str] = {}
    problems = []
    for p in parsed:
        if not ids.is_own_card_id(p.card.owner, p.id) and older_owners.get(p.id) != p.card.owner:
            p.id = ids.own_card_id(p.card.owner, p.id)
        if p.id in seen:
            problems.append(f"{p.where}: card id {p.id!r} is the same card as {seen[p.id]}")
        seen[p.id] = p.where
    if problems:
        raise CardImportError(problems)


def refuse_takeovers(parsed: list[ParsedCard], stored_owners: dict[str, str]) -> None:
    """CardImportError naming every card id that exists under another owner."""
    problems = [
        f"{p.where}: card id {p.id!r} already belongs to {stored_owners[p.id] or '(no owner)'!r}, "
        f"not {p.card.owner!r}: an import never overwrites another user's card (give it another id)"
        for p in parsed
        if p.id in stored_owners and stored_owners[p.id] != p.card.owner
    ]
    if problems:
        raise CardImportError(problems)


def same_content(stored: Card, card: Card) -> bool:
    return all(getattr(stored, f) == getattr(card, f) for f in _CONTENT_FIELDS)


def plan_upsert(parsed: list[ParsedCard], stored: dict[str, Card]) -> Plan:
    """Unchanged cards are skipped; a re-imported card keeps its stored
    `created`, and `updated` moves only when the content changed (to the
    input's `updated` if that is newer than the stored one, else to now)."""
    plan = Plan()
    for p in parsed:
        old = stored.get(p.id)
        if old is not None and same_content(old, p.card):
            plan.skipped.append(p.id)
            continue
        card = p.card
        if old is not None:
            card.created = old.created
            if not p.given_updated or card.updated <= old.updated:
                card.updated = now()
        plan.writes.append((p.id, card))
    return plan


def import_cards(
    db: Db, path: Path, owner: str | None = None, visibility: str | None = None, dry_run: bool = False
) -> Plan:
    """Validate everything and refuse any takeover, then upsert only new and
    changed cards, each on the condition that it is still as it was read."""
    from tqdm import tqdm

    from cardchat.repo import card_writes

    parsed = validate(read_source(path), owner, visibility)
    older = card_writes.read_cards(db, [p.id for p in parsed if not ids.is_own_card_id(p.card.owner, p.id)])
    namespace(parsed, {cid: s.card.owner for cid, s in older.items()})
    stored = card_writes.read_cards(db, [p.id for p in parsed])
    refuse_takeovers(parsed, {cid: s.card.owner for cid, s in stored.items()})
    plan = plan_upsert(parsed, {cid: s.card for cid, s in stored.items()})
    if not dry_run and plan.writes:
        with tqdm(total=len(plan.writes), desc="import", unit="card") as bar:
            try:
                card_writes.write_cards(db, plan.writes, {cid: s.update_time for cid, s in stored.items()}, bar)
            except card_writes.CardsChanged as e:
                raise CardImportError(
                    [
                        f"card {cid!r} was created or changed by someone else during the import; "
                        "run it again (what is already written is skipped as unchanged)"
                        for cid in e.ids
                    ],
                    e.written,
                ) from e
    return plan
