"""The demo deck: a few hundred cards derived from Debian's git-doc sources.

Git's documentation is something people really ask questions about, it is
freely licensed, and apt installs it offline. Cards are cut per man page
(summary + description, groups of options, further sections), per glossary
entry group, per user-manual section and per how-to, converted to Markdown.
Ownership is assigned deterministically so the demo shows permission culling:
some cards belong to `other-user` and demo-user must not see them.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from cardchat.admin import asciidoc

DOC_DIR = "/usr/share/doc/git-doc"
DEMO_USER = "demo-user"
OTHER_USER = "other-user"
MIN_BODY, TARGET_BODY, MAX_BODY = 300, 2200, 4000
_EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

#: cmds-*.txt lists that name the commands a person uses day to day, and the
#: tag their pages get.
FAMILIES = {
    "cmds-mainporcelain.txt": "porcelain",
    "cmds-ancillarymanipulators.txt": "ancillary",
    "cmds-ancillaryinterrogators.txt": "ancillary",
    "cmds-synchingrepositories.txt": "interop",
    "cmds-guide.txt": "guide",
    "cmds-userinterfaces.txt": "guide",
}
_SKIP_SECTIONS = {
    "NAME",
    "SYNOPSIS",
    "SEE ALSO",
    "GIT",
    "AUTHOR",
    "AUTHORS",
    "DOCUMENTATION",
    "REPORTING BUGS",
    "BUGS",
    "FILES",
    "SECURITY",
    "DESCRIPTION",
    "OPTIONS",
}


class MissingGitDoc(RuntimeError):
    pass


def slug(text: str, limit: int = 100) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:limit].rstrip("-") or "card"


def _display(page: str) -> str:
    """git-rebase -> git rebase; gitattributes stays."""
    return page.replace("git-", "git ", 1) if page.startswith("git-") else page


def _split(body: str, limit: int = MAX_BODY) -> list[str]:
    """Cut a long body at paragraph boundaries (never inside a code fence)
    into pieces of about TARGET_BODY characters."""
    if len(body) <= limit:
        return [body]
    paragraphs, buf, fence = [], [], False
    for para in body.split("\n\n"):
        buf.append(para)
        fence ^= para.count("```") % 2 == 1
        if not fence:
            paragraphs.append("\n\n".join(buf))
            buf = []
    if buf:
        paragraphs.append("\n\n".join(buf))
    parts, cur = [], ""
    for para in paragraphs:
        if cur and len(cur) + len(para) > TARGET_BODY:
            parts.append(cur)
            cur = ""
        cur = f"{cur}\n\n{para}" if cur else para
    if cur:
        parts.append(cur)
    # A piece bigger than the hard limit (one huge paragraph) is cut hard.
    out: list[str] = []
    for p in parts:
        out.extend(p[i : i + limit] for i in range(0, len(p), limit))
    if len(out) > 1 and len(out[-1]) < MIN_BODY:
        out[-2] = out[-2] + "\n\n" + out.pop()
    return out


class _Deck:
    def __init__(self) -> None:
        self.cards: list[dict[str, Any]] = []
        self.ids: set[str] = set()
        self._bodies: set[str] = set()

    def add(self, key: str, title: str, body: str, tags: list[str], min_len: int = MIN_BODY) -> None:
        body = body.strip()
        digest = hashlib.sha256(body.encode()).hexdigest()
        # Shared includes (merge strategies, pretty formats) appear in several
        # man pages: one card is enough.
        if len(body) < min_len or digest in self._bodies:
            return
        self._bodies.add(digest)
        pieces = _split(body)
        for n, piece in enumerate(pieces, 1):
            suffix = f" (part {n})" if len(pieces) > 1 else ""
            cid = slug(key + (f"-{n}" if len(pieces) > 1 else ""), 96)
            base, k = cid, 2
            while cid in self.ids:
                cid, k = f"{base}-{k}", k + 1
            self.ids.add(cid)
            self.cards.append({"id": cid, "title": title + suffix, "body": piece, "tags": tags})


def _first_sentence(lines: list[str]) -> str:
    paras = [p for p in asciidoc.to_markdown(lines).split("\n\n") if "```" not in p]
    text = (paras[0] if paras else "").replace("\n", " ")
    sentence = re.split(r"(?<=[a-z)`])\. ", text)[0].rstrip(".")
    return sentence if len(sentence) <= 70 else sentence[:67].rsplit(" ", 1)[0] + "…"


def _man_page(deck: _Deck, path: Path, family: str) -> None:
    page = path.stem
    name = _display(page)
    tags = [family, page]
    secs = asciidoc.sections(asciidoc.load(path))
    by_title = {asciidoc.inline(s.title).upper(): s for s in secs}
    summary = ""
    if "NAME" in by_title:
        summary = " ".join(ln.strip() for ln in by_title["NAME"].lines if ln.strip())
        summary = asciidoc.inline(summary.split(" - ", 1)[-1]).strip()
    head = f"{name} — {summary}" if summary else name
    desc = [s for s in secs if s.title.upper() == "DESCRIPTION"]
    synopsis = by_title.get("SYNOPSIS")
    body = ""
    if synopsis and family != "guide":
        code = "\n".join(ln for ln in synopsis.lines if ln.strip() and not ln.startswith("["))
        body = "```\n" + asciidoc.inline(code).replace("`", "") + "\n```\n\n"
    body += asciidoc.to_markdown(desc[0].lines) if desc else ""
    deck.add(f"{page}", head, body, tags, min_len=120)
    in_desc = False
    for sec in secs:
        sec.title = asciidoc.inline(sec.title).replace("`", "").strip().rstrip(":")
        upper = sec.title.upper()
        if sec.level == 1:
            in_desc = upper == "DESCRIPTION"
        if upper == "OPTIONS" and sec.level == 1:
            _options(deck, page, name, sec.lines, tags)
        elif upper in _SKIP_SECTIONS or in_desc or not sec.title:
            continue
        else:
            title = sec.title if sec.title != upper else sec.title.capitalize()
            deck.add(f"{page}-{title}", f"{name} — {title}", asciidoc.to_markdown(sec.lines), tags)


def _options(deck: _Deck, page: str, name: str, lines: list[str], tags: list[str]) -> None:
    _, items = asciidoc.items(lines)
    groups: list[list[asciidoc.Item]] = []
    size = 0
    for item in items:
        n = sum(len(ln) for ln in item.lines) + 40
        if groups and size + n <= TARGET_BODY:
            groups[-1].append(item)
            size += n
        else:
            groups.append([item])
            size = n
    for group in groups:
        body = "\n\n".join(asciidoc.to_markdown([f"{', '.join(i.labels)}::"] + i.lines) for i in group)
        first = group[0].labels[0]
        if len(group) == 1:
            sentence = _first_sentence(group[0].lines)
            title = f"{name} — {', '.join(group[0].labels)}" + (f": {sentence}" if sentence else "")
        else:
            names = [_long_name(i.labels) for i in group]
            shown = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
            title = f"{name} options: {shown}"
        deck.add(f"{page}-opt-{first}", title, body, tags + ["options"], min_len=150)


def _long_name(labels: list[str]) -> str:
    """The form a person searches for: --dry-run rather than -n."""
    label = next((ln for ln in labels if ln.startswith("--")), labels[0])
    return re.split(r"\s|=|\[=|\[<", label)[0] or label


def _glossary(deck: _Deck, path: Path) -> None:
    _, items = asciidoc.items(asciidoc.load(path, set()))
    group: list[asciidoc.Item] = []
    size = 0
    for item in items + [None]:
        if group and (item is None or size >= MIN_BODY * 2):
            terms = [g.labels[0] for g in group]
            body = "\n\n".join(asciidoc.to_markdown([f"{g.labels[0]}::"] + g.lines) for g in group)
            deck.add(f"glossary-{terms[0]}", "Git glossary: " + ", ".join(terms), body, ["glossary"], 100)
            group, size = [], 0
        if item is not None:
            group.append(item)
            size += sum(len(ln) for ln in item.lines)


def _manual(deck: _Deck, path: Path) -> None:
    for sec in asciidoc.sections(asciidoc.load(path, set())):
        if sec.level < 1 or not sec.title:
            continue
        title = asciidoc.inline(sec.title).replace("`", "")
        deck.add(
            f"user-manual-{sec.anchor or title}",
            f"Git user manual: {title}",
            asciidoc.to_markdown(sec.lines),
            ["user-manual"],
        )


def _howto(deck: _Deck, path: Path) -> None:
    lines = asciidoc.load(path, set())
    meta: dict[str, str] = {}
    last = ""
    while (lines and re.match(r"^[\w-]+: ", lines[0])) or (lines and lines[0].startswith(" ") and meta):
        line = lines.pop(0)
        if line.startswith(" "):
            meta[last] += " " + line.strip()
        else:
            last, value = line.split(": ", 1)
            meta[last] = value
    secs = asciidoc.sections(lines)
    title = next((s.title for s in secs if s.title), path.stem.replace("-", " "))
    body = "\n\n".join(
        (f"## {s.title}\n\n" if s.title and s.title != title else "") + asciidoc.to_markdown(s.lines) for s in secs
    )
    if meta.get("Abstract"):
        body = f"_{meta['Abstract']}_\n\n{body}"
    heading = title if title.lower().startswith("how ") else f"How to: {title}"
    deck.add(f"howto-{path.stem}", heading, body, ["howto"])


def _assign_ownership(cards: list[dict[str, Any]]) -> None:
    """Deterministic from the id's hash: ~15 cards private to other-user, a
    few of those shared with demo-user, the rest demo-user's (70 % public)."""
    ranked = sorted(cards, key=lambda c: hashlib.sha256(c["id"].encode()).hexdigest())
    other = {c["id"] for c in ranked[:15]}
    shared = {c["id"] for c in ranked[15:17]}
    for n, card in enumerate(cards):
        h = int(hashlib.sha256(card["id"].encode()).hexdigest()[:8], 16)
        if card["id"] in other:
            card.update(owner=OTHER_USER, visibility="private", viewers=[])
        elif card["id"] in shared:
            card.update(owner=OTHER_USER, visibility="private", viewers=[DEMO_USER])
        else:
            card.update(owner=DEMO_USER, visibility="public" if h % 10 < 7 else "private", viewers=[])
        stamp = _EPOCH + timedelta(minutes=7 * n)
        card["created"] = card["updated"] = stamp.isoformat()


def build_deck(doc_dir: str = DOC_DIR) -> list[dict[str, Any]]:
    """Cards in the JSON export shape (see importer): id, title, body, owner,
    visibility, viewers, tags, created, updated. A fresh copy each call."""
    deck: list[dict[str, Any]] = json.loads(_build_json(str(Path(doc_dir).resolve())))
    return deck


@lru_cache(maxsize=2)
def _build_json(doc_dir: str) -> str:
    # Parsing takes seconds; the eval harness and tests ask repeatedly.
    root = Path(doc_dir)
    if not (root / "git-rebase.txt").exists():
        raise MissingGitDoc(f"{root} has no git-doc sources: run scripts/setup (it installs git-doc with apt)")
    deck = _Deck()
    seen: set[str] = set()
    for listing, family in FAMILIES.items():
        for page in re.findall(r"^linkgit:([\w.-]+)\[\d\]::", (root / listing).read_text(), re.M):
            path = root / f"{page}.txt"
            if page in seen or not path.exists() or page == "gitglossary":
                continue
            seen.add(page)
            _man_page(deck, path, family)
    _glossary(deck, root / "glossary-content.txt")
    _manual(deck, root / "user-manual.txt")
    for path in sorted((root / "howto").glob("*.txt")):
        _howto(deck, path)
    _assign_ownership(deck.cards)
    return json.dumps(deck.cards)


def write_deck(out: str, doc_dir: str = DOC_DIR) -> int:
    cards = build_deck(doc_dir)
    Path(out).write_text(json.dumps({"cards": cards}, ensure_ascii=False, indent=1))
    return len(cards)
