"""One Markdown note read as a card's fields: the one reading the CLI importer
(admin/importer.py) and syncCards (chat/card_sync.py) share, so a file gives
the same card whichever way it comes in.

- Front matter: `---` delimited `key: value` lines; a value `[a, b]` or
  following `- item` lines is a list. `title`, `tags`, `aliases`, `visibility`
  (and the importer's `id`, `owner`, `viewers`, dates) are taken from it.
- The title: front matter `title:`, else a leading `# ` heading (taken out of
  the body), else none (the caller names it from the file).
- Tags: front matter `tags` and every `#hashtag` of the body outside code
  (fenced blocks and inline spans), in order of first appearance, each once.
  A Markdown heading (`# Title`, a space after the hashes) is no hashtag.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)
_HEADING = re.compile(r"\A\s*# +(.+?)\s*#*\s*(?:\n|\Z)")
_CODE = re.compile(r"^(```|~~~).*?^\1[ \t]*$|`[^`\n]*`", re.S | re.M)
#: A hashtag starts with a letter; `#` inside a word, a URL's fragment or an entity (`&#39;`) is none.
_HASHTAG = re.compile(r"(?<![\w&#/])#([A-Za-z][\w/-]{0,99})")
_WIKILINK = re.compile(r"\[\[([^\[\]\n]{1,300})\]\]")


@dataclass
class Note:
    """`meta`: the front matter as read (untrusted values); `title` None when neither it nor a heading gives one."""

    meta: dict[str, Any] = field(default_factory=dict)
    title: Any = None
    body: str = ""
    tags: Any = field(default_factory=list)


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter's keys, and the text after it."""
    m = _FRONT_MATTER.match(text)
    if not m:
        return {}, text
    meta: dict[str, Any] = {}
    key = None
    for line in m.group(1).splitlines():
        item = re.match(r"^\s*-\s+(.*)$", line)
        if item and key is not None:
            meta[key] = (meta[key] if isinstance(meta[key], list) else []) + [_scalar(item.group(1))]
            continue
        kv = re.match(r"^([\w-]+):\s*(.*)$", line)
        if kv:
            key, value = kv.group(1), kv.group(2).strip()
            if value.startswith("[") and value.endswith("]"):
                meta[key] = [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
            else:
                meta[key] = _scalar(value) if value else []
    return meta, text[m.end() :]


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def hashtags(body: str) -> list[str]:
    """The body's `#hashtags` outside code, each once, in order."""
    return list(dict.fromkeys(_HASHTAG.findall(_CODE.sub(" ", body))))


def read_note(text: str) -> Note:
    """A note's fields (see the module's docstring); the body is stripped."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    meta, body = front_matter(text)
    title = meta.get("title")
    if title is None:
        heading = _HEADING.match(body)
        if heading:
            title = heading.group(1)
            body = body[heading.end() :]
    given = meta.get("tags")
    if given is not None and not isinstance(given, (str, list)):
        return Note(meta, title, body.strip(), given)  # not text: card_validity refuses it, naming the field
    tags: list[Any] = [given] if isinstance(given, str) else list(given or [])
    tags += [t for t in hashtags(body) if t not in tags]
    return Note(meta, title, body.strip(), tags)


def wikilink_targets(text: str) -> set[str]:
    """Every target link_wikilinks would look up in `text`."""
    return {m.group(1).partition("|")[0].split("#")[0].strip() for m in _WIKILINK.finditer(text)}


def link_wikilinks(body: str, card_of: Callable[[str], str | None]) -> str:
    """`[[target]]`, `[[target|label]]` and `[[target#heading]]` as a Markdown link to the card
    `card_of(target)` names (the app's /card/<id>); a target it does not know stays as written."""

    def link(m: re.Match[str]) -> str:
        target, _, label = m.group(1).partition("|")
        card = card_of(target.split("#")[0].strip())
        return f"[{(label or target).strip()}](/card/{card})" if card else m.group(0)

    return _WIKILINK.sub(link, body)
