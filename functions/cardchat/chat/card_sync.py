"""syncCards: a folder of the owner's notes (an Obsidian vault, a Git repository of Markdown) kept
as their cards, a request at a time.

The client lists every file it has with the SHA-256 of its bytes; the server answers `need` for
the files whose hash it has not synced, and the client sends those again with their text. So an
unchanged file costs no text sent and no card write, and a folder of any size syncs in requests
of at most MAX_FILES files.

- A file's card is ids.synced_card_id(owner, source, path): the same at every sync, in the
  owner's namespace. A rename is a delete (with delete_missing) plus a create.
- The text is read by parsing/markdown_notes.py, as the importer reads it; the title falls back
  to the file's name; `[[wikilinks]]` to another file the request lists become links to its card.
  `visibility` from front matter, else the card's as it is (a new card: private).
- Beside each card, card_syncs/{card_id} records where it came from and the card's content
  (content_hash) as the sync left it.
- delete_missing deletes the source's cards whose file the request does not list; with `run`,
  those no request of that run listed (card_sync_runs records what each listed): a client lists a
  folder of any size in requests of one run, then sends delete_missing in the run's last. A run
  unknown to this owner and source, or expired, deletes nothing: the request is refused.
- dry_run answers the same (`deletions` naming the files whose cards would go) and writes
  nothing: no card, no record, no path index, no run.

A card edited in the app and then changed in the folder: the app's edit wins and nothing is lost.
The file is refused (`refused`, saying so) while the card differs from what the last sync wrote,
until the file says what the card says (then it is taken, with no card write) or the card's edits
are undone in the app. delete_missing likewise keeps a card edited in the app, and refuses its
deletion saying why. A card deleted in the app stays deleted until its file changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from cardchat import ids
from cardchat.errors import FailedPrecondition, InvalidArgument
from cardchat.parsing import card_validity, markdown_notes
from cardchat.parsing.markdown_notes import wikilink_targets
from cardchat.parsing.sync_requests import SyncFile, SyncRequest
from cardchat.schema.card_syncs import CardSync, content_hash
from cardchat.schema.documents import Card, now

if TYPE_CHECKING:
    from cardchat.repo.card_syncs import FileWrite
    from cardchat.repo.card_writes import StoredCard
    from cardchat.repo.db import Db

EDITED_IN_APP = (
    "edited in the app since the last sync: the app's edit is kept; make the file say what the card says, "
    "or undo the edit in the app, and sync again"
)
NOT_DELETED = "edited in the app since the last sync: not deleted; delete it in the app if you mean to"
RUN_UNKNOWN = (
    "run: no such run of this source (unknown, or expired a day after its first request): "
    "list the folder again in requests of a new run, then send delete_missing in it"
)


@dataclass
class SyncResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    need: list[str] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)
    #: The paths whose cards `deleted` counts: what a dry run's client lists before deleting.
    deletions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "need": self.need,
            "refused": self.refused,
            "deletions": self.deletions,
        }


@dataclass
class _Sync:
    """One request's state: what is stored, and what it will write."""

    owner: str
    request: SyncRequest
    records: dict[str, CardSync]
    stored: dict[str, StoredCard]
    when: datetime
    result: SyncResult = field(default_factory=SyncResult)
    writes: list[FileWrite] = field(default_factory=list)
    #: (what the write counts as, its path), counted once written.
    counted: list[tuple[str, str]] = field(default_factory=list)

    def card_id(self, path: str) -> str:
        return ids.synced_card_id(self.owner, self.request.source, path)

    def refuse(self, path: str, reason: str) -> None:
        self.result.refused.append({"path": path, "reason": reason})


def sync(db: Db, owner: str, request: SyncRequest, when: datetime | None = None) -> SyncResult:
    """What the request changes, written (a dry run: nothing written); FailedPrecondition when a
    card changed in the app while it ran (what was written stays, and a second run finds it unchanged)."""
    from cardchat.repo import card_sync_runs, card_syncs, card_writes

    when = when or now()
    listed = {f.path: ids.synced_card_id(owner, request.source, f.path) for f in request.files}
    kept = _kept(db, owner, request, list(listed.values()), when)
    if request.delete_missing:
        records = card_syncs.records_of(db, owner, request.source)
    else:  # by id: a request of the folder's hashes reads its own files' records, not the source's
        records = card_syncs.records_among(db, list(listed.values()))
    gone = [p for p, r in records.items() if r.card not in kept] if request.delete_missing else []
    sent = [listed[f.path] for f in request.files if f.markdown is not None]  # only these may write
    cids = [*sent, *(records[p].card for p in gone)]
    state = _Sync(owner, request, records, card_writes.read_cards(db, cids), when)
    links = _link_targets(state, _linkable(db, state)) if _named(request) else {}
    for f in request.files:
        _plan_file(state, f, links)
    for path in gone:
        _plan_delete(state, path)
    try:
        if not request.dry_run:
            card_syncs.write(db, owner, request.source, state.writes)
    except card_syncs.SyncConflict as e:
        raise FailedPrecondition("files: a card changed in the app during the sync; run it again") from e
    if request.delete_missing and request.run is not None:
        card_sync_runs.end(db, owner, ids.sync_run_key(owner, request.source, request.run))
    for kind, path in state.counted:
        setattr(state.result, kind, getattr(state.result, kind) + 1)
        if kind == "deleted":
            state.result.deletions.append(path)
    return state.result


def _kept(db: Db, owner: str, request: SyncRequest, listed: list[str], when: datetime) -> set[str]:
    """The cards delete_missing keeps: those the request lists and, in a run, those its earlier
    requests listed; a request of a run that does not delete adds what it lists to the run."""
    from cardchat.repo import card_sync_runs

    if request.run is None:
        return set(listed)
    key = ids.sync_run_key(owner, request.source, request.run)
    if not request.delete_missing:
        if not card_sync_runs.join(db, owner, key, listed, when):
            raise InvalidArgument(RUN_UNKNOWN)
        return set(listed)
    earlier = card_sync_runs.listed(db, owner, key, when)
    if earlier is None:
        raise InvalidArgument(RUN_UNKNOWN)
    return earlier | set(listed)


def _named(request: SyncRequest) -> set[str]:
    """The bare names (link_name) of the files the request's `[[wikilinks]]` may name."""
    targets = {t for f in request.files if f.markdown and "[[" in f.markdown for t in wikilink_targets(f.markdown)}
    return {PurePosixPath(t).name for t in targets}


def _linkable(db: Db, state: _Sync) -> list[str]:
    """The synced paths a link of the request may name: those of the names it links by, read by
    name (a request links to few of a large source's files), or the source's records when read."""
    from cardchat.repo import card_syncs

    if state.request.delete_missing:
        return list(state.records)
    names = sorted(_named(state.request))
    return card_syncs.paths_named(db, state.owner, state.request.source, names, build=not state.request.dry_run)


def _link_targets(state: _Sync, synced: list[str]) -> dict[str, str]:
    """What a `[[wikilink]]` may name, to its card id: a file's path without its extension, and its
    bare name where no other file has the same; the files listed and those synced before alike
    (a client sends a changed file without the unchanged ones it links to)."""
    targets: dict[str, str] = {}
    names: dict[str, list[str]] = {}
    for path in dict.fromkeys([*(f.path for f in state.request.files), *synced]):
        stem = str(PurePosixPath(path).with_suffix(""))
        targets[stem] = state.card_id(path)
        names.setdefault(PurePosixPath(stem).name, []).append(path)
    for name, paths in names.items():
        if len(paths) == 1:
            targets.setdefault(name, state.card_id(paths[0]))
    return targets


def _plan_file(state: _Sync, f: SyncFile, links: dict[str, str]) -> None:
    record, cid = state.records.get(f.path), state.card_id(f.path)
    if record is not None and record.sha256 == f.sha256:
        state.result.unchanged += 1
        return
    if f.markdown is None:
        state.result.need.append(f.path)
        return
    stored = state.stored.get(cid)
    card = _card_of(state, f, links, stored.card if stored else None)
    if isinstance(card, str):
        state.refuse(f.path, card)
        return
    new = CardSync(state.owner, cid, state.request.source, f.path, f.sha256, content_hash(card), state.when)
    if stored is None:
        state.writes.append(_write(f.path, card, new))
        state.counted.append(("created", f.path))
        return
    held = content_hash(stored.card)
    if held == new.card_hash:
        state.writes.append(_write(f.path, None, new))  # the file now says what the card says
        state.result.unchanged += 1
    elif record is not None and held != record.card_hash:
        state.refuse(f.path, EDITED_IN_APP)
    else:
        fields = {"title": card.title, "body": card.body, "tags": card.tags, "visibility": card.visibility}
        state.writes.append(_write(f.path, card, new, stored.update_time, dict(fields, updated=state.when)))
        state.counted.append(("updated", f.path))


def _write(
    path: str, card: Card | None, record: CardSync | None, read_time: Any = None, fields: Any = None
) -> FileWrite:
    """The file `path`'s card created (no read_time), updated (`fields`, on `read_time`), deleted
    (no card, on `read_time`) or left alone (neither), with its record written or (None) deleted."""
    from cardchat.repo.card_syncs import FileWrite

    return FileWrite(path, card, record, read_time, fields)


def _card_of(state: _Sync, f: SyncFile, links: dict[str, str], stored: Card | None) -> Card | str:
    """The card the file gives, or why it gives none (naming the field)."""
    note = markdown_notes.read_note(f.markdown or "")
    title = note.title if note.title is not None else PurePosixPath(f.path).stem
    visibility = note.meta.get("visibility") or (stored.visibility if stored else "private")
    fields: dict[str, Any] = {
        "title": title.strip() if isinstance(title, str) else title,
        "body": markdown_notes.link_wikilinks(note.body, links.get),
        "visibility": visibility,
        "tags": note.tags,
        "viewers": list(stored.viewers) if stored and visibility == card_validity.VIEWERS_VISIBILITY else [],
    }
    problems = card_validity.problems(fields)
    if problems:
        return "; ".join(f"{name}: {why}" for name, why in problems)
    created = stored.created if stored else state.when
    return Card(owner=state.owner, created=created, updated=state.when, **fields)


def _plan_delete(state: _Sync, path: str) -> None:
    record, cid = state.records[path], state.card_id(path)
    stored = state.stored.get(cid)
    if stored is not None and content_hash(stored.card) != record.card_hash:
        state.refuse(path, NOT_DELETED)
        return
    state.writes.append(_write(path, None, None, stored.update_time if stored else None))
    if stored is not None:
        state.counted.append(("deleted", path))
