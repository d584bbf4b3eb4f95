"""Just enough AsciiDoc for the git documentation: includes, conditionals,
section structure and a conversion of a block of text to readable Markdown.

It is tuned to the sources in Debian's git-doc package (the demo deck), not
a general AsciiDoc implementation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_INCLUDE = re.compile(r"^include::([^\[]+)\[\]\s*$")
_COND = re.compile(r"^(ifdef|ifndef|endif)::([^\[]*)\[\]\s*$")
_ATTR = re.compile(r"^:([\w-]+):\s*(.*)$")
_ATTR_REFS = {
    "litdd": "--",
    "caret": "^",
    "tilde": "~",
    "asterisk": "*",
    "startsb": "[",
    "endsb": "]",
    "plus": "+",
    "apostrophe": "'",
    "empty": "",
    "nbsp": " ",
    "sp": " ",
}


def load(path: Path, attributes: set[str] | None = None, depth: int = 0) -> list[str]:
    """The file's lines with `include::` resolved (when the file exists next
    to it) and `ifdef`/`ifndef` blocks evaluated against `attributes`, which
    starts as the page's own name the way git's Makefile builds man pages."""
    attrs = attributes if attributes is not None else {path.stem}
    out: list[str] = []
    skipping: list[bool] = []  # one entry per open conditional: does it hide its text?
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = raw.rstrip()
        cond = _COND.match(line)
        if cond:
            kind, names = cond.groups()
            if kind == "endif":
                if skipping:
                    skipping.pop()
                continue
            present = any(n.strip() in attrs for n in re.split(r"[,+]", names))
            skipping.append(present if kind == "ifndef" else not present)
            continue
        if any(skipping):
            continue
        attr = _ATTR.match(line)
        if attr and depth < 10:
            attrs.add(attr.group(1))
            continue
        inc = _INCLUDE.match(line)
        if inc:
            target = path.parent / inc.group(1)
            if target.exists() and depth < 10:
                out.extend(load(target, attrs, depth + 1))
            continue
        out.append(line)
    return out


@dataclass
class Section:
    title: str
    level: int
    anchor: str = ""
    lines: list[str] = field(default_factory=list)


def _is_underline(prev: str, line: str, char: str) -> bool:
    return (
        bool(re.search(r"[A-Za-z]", prev))
        and not prev.startswith((" ", "\t", "[", "//"))
        and len(line) >= 2
        and set(line) == {char}
        and abs(len(line) - len(prev)) <= 2
    )


_UNDERLINE_LEVELS = {"=": 0, "-": 1, "~": 2, "^": 3, "+": 4}
_DELIMITERS = ("----", "....", "____", "****", "====", "|===", "////")


def sections(lines: list[str]) -> list[Section]:
    """Split at headings (both underlined and `== title` forms), outside
    delimited blocks. The text before the first heading is a level-0 section."""
    result = [Section(title="", level=0)]
    in_block: str | None = None
    anchor = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        delim = _delimiter(line)
        if in_block:
            if delim == in_block:
                in_block = None
            result[-1].lines.append(line)
            i += 1
            continue
        header = re.match(r"^(={1,5}) (\S.*)$", line)
        if header:
            result.append(Section(header.group(2).strip(), len(header.group(1)) - 1, anchor))
            anchor = ""
            i += 1
            continue
        under = nxt[:1]
        if under in _UNDERLINE_LEVELS and _is_underline(line, nxt, under):
            result.append(Section(line.strip(), _UNDERLINE_LEVELS[under], anchor))
            anchor = ""
            i += 2
            continue
        if delim:  # not an underline (checked above), so it opens a block
            in_block = delim
        m = re.match(r"^\[\[([^\]]+)\]\]$", line)
        if m:
            anchor = m.group(1)
            i += 1
            continue
        result[-1].lines.append(line)
        i += 1
    return result


@dataclass
class Item:
    """One entry of a `label::` list (an option, a glossary term)."""

    labels: list[str]
    lines: list[str]


_LABEL = re.compile(r"^(\S.*?)(::|;;)\s*(.*)$")
#: A callout: a literal line's trailing `<1>` markers, and the list that explains them (`<1> text`).
#: As AsciiDoc renders them, a number in a circle; in Markdown, `(1)` in the code and `1.` in the list.
_CALLOUT_MARKS = re.compile(r"(?:\s+<\d+>)+\s*$")
_CALLOUT_ITEM = re.compile(r"^<(\d+)>\s+(.*)$")


def _callout_marks(line: str) -> str:
    """A literal line with its trailing callout markers as `(1)`, aligned as the author aligned them."""
    marks = _CALLOUT_MARKS.search(line)
    if not marks:
        return line
    return line[: marks.start()] + re.sub(r"<(\d+)>", r"(\1)", marks.group(0))


# Only `label::` starts a top-level item; `label:::` and `label;;` nest inside one.
_TOP_LABEL = re.compile(r"^(\S.*?[^:;])(::)(?![:;])\s*(.*)$")


def items(lines: list[str]) -> tuple[list[str], list[Item]]:
    """Split lines into (text before the first item, items). Consecutive label
    lines form one item (`-i::` then `--interactive::`)."""
    preamble: list[str] = []
    found: list[Item] = []
    in_block: str | None = None
    for line in lines:
        delim = _delimiter(line)
        if in_block:
            in_block = None if delim == in_block else in_block
        elif delim:
            in_block = delim
        elif (m := _TOP_LABEL.match(line)) and not line.startswith(("http", "//")) and m.group(1) != "NOTE":
            label, rest = _clean_label(m.group(1)), m.group(3)
            if found and not any(ln.strip() for ln in found[-1].lines):
                found[-1].labels.append(label)
            else:
                found.append(Item([label], []))
            if rest:
                found[-1].lines.append(rest)
            continue
        (found[-1].lines if found else preamble).append(line)
    return preamble, found


def _clean_label(label: str) -> str:
    label = re.sub(r"^\[\[[^\]]+\]\]", "", label)
    return inline(label).replace("`", "").strip()


def inline(text: str) -> str:
    """Inline markup to Markdown."""
    text = re.sub(r"\{(\w+)\}", lambda m: _ATTR_REFS.get(m.group(1), m.group(0)), text)
    text = re.sub(r"``(.+?)''", r'"\1"', text)  # ``quoted
    text = re.sub(r"\\(?=--|[*+{}'\[\]])", "", text)
    text = re.sub(r"linkgit:git-([\w-]+)\[\d\]", r"`git \1`", text)
    text = re.sub(r"linkgit:([\w.-]+)\[\d\]", r"`\1`", text)
    text = re.sub(r"<<[^,>]+,([^>]+)>>", r"\1", text)
    text = re.sub(r"<<([^>]+)>>", lambda m: m.group(1).replace("def_", "").replace("-", " "), text)
    text = re.sub(r"\[\[[^\]]+\]\]", "", text)
    text = re.sub(r"(?<![\w+])\+([^+\s][^+]*?)\+(?![\w+])", r"`\1`", text)
    text = re.sub(r"(?<![\w'`])'([^'\s][^']*?)'(?![\w'])", r"`\1`", text)
    text = re.sub(r"(https?://\S+?)\[([^\]]*)\]", lambda m: f"[{m.group(2) or m.group(1)}]({m.group(1)})", text)
    return text


def to_markdown(lines: list[str]) -> str:
    """Block structure to Markdown: delimited and indented literal blocks
    become fenced code, admonitions and attribute lines are dropped, list
    continuation `+` lines become paragraph breaks, `label::` items become
    bold terms."""
    # Cross references may wrap across lines: resolve them before going line by line.
    joined = re.sub(r"<<[^,>]+,([^>]+?)>>", r"\1", "\n".join(lines), flags=re.S)
    writer = _MarkdownWriter()
    for line in joined.split("\n"):
        writer.feed(line)
    text = writer.finish()
    # Left inside literal blocks (no inline markup there): plain names.
    text = re.sub(r"linkgit:git-([\w-]+)\[\d\]", r"git \1", text)
    text = re.sub(r"linkgit:([\w.-]+)\[\d\]", r"\1", text)
    text = re.sub(r"```\n+```\n?", "", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


class _MarkdownWriter:
    """to_markdown line by line: which block it is in decides what a line becomes."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.in_block: str | None = None  # the delimiter of the open ----/.... block
        self.in_indented = False  # inside an indented literal block
        self.prev_blank = True
        self.desc_pending = False  # a `label::` with nothing after it: its description may follow

    def feed(self, line: str) -> None:
        delim = _delimiter(line)
        if self.in_block:
            self._inside_delimited(line, delim)
            return
        if delim in ("----", "...."):
            _close_indented(self.out, self.in_indented)
            self.in_indented = False
            self.out.append("```")
            self.in_block = delim
            return
        if delim or line.startswith("//") or re.match(r"^\[[\w ,=\"'.-]*\]$", line):
            return  # comment, sidebar/quote delimiter or attribute list
        stripped = line.strip()
        if stripped == "+":
            line = stripped = ""
        if self._description(line, stripped) or self._indented(line, stripped):
            return
        if self.in_indented and stripped:
            _close_indented(self.out, True)
            self.in_indented = False
        if self.in_indented and not stripped:
            self.out.append("")
            return
        self._text(line, stripped)

    def finish(self) -> str:
        _close_indented(self.out, self.in_indented)
        if self.in_block:
            self.out.append("```")
        return "\n".join(self.out)

    def _inside_delimited(self, line: str, delim: str | None) -> None:
        if delim == self.in_block:
            self.out.append("```")
            self.in_block = None
        else:
            self.out.append(_callout_marks(line.replace("\t", "    ")))

    def _description(self, line: str, stripped: str) -> bool:
        """The indented paragraph right after `label::` is its description, not a literal."""
        if not (self.desc_pending and stripped):
            return False
        self.desc_pending = False
        if self.in_indented or line[:1] not in (" ", "\t"):
            return False
        self.out.append(inline(stripped))
        self.prev_blank = False
        return True

    def _indented(self, line: str, stripped: str) -> bool:
        """An indented line after a blank one (or inside such a block) that is not a list item: literal."""
        if not (
            line[:1] in (" ", "\t")
            and stripped
            and (self.prev_blank or self.in_indented)
            and not re.match(r"^[*-.]\s|^\d+\.", stripped)
        ):
            return False
        if not self.in_indented:
            self.out.append("```")
            self.in_indented = True
        self.out.append(_callout_marks(line.replace("\t", "    ").removeprefix("    ").removeprefix(" ")))
        self.prev_blank = False
        return True

    def _text(self, line: str, stripped: str) -> None:
        m = _LABEL.match(line)
        if m and not line.startswith("http"):
            term, rest = _clean_label(m.group(1)), inline(m.group(3))
            shown = f"`{term}`" if term[:1] in "-<" else term
            self.out.append(f"**{shown}**" + (f" {rest}" if rest else ""))
            self.desc_pending = not rest
        elif re.match(r"^\.+ ", stripped):
            self.out.append("1. " + inline(stripped.lstrip(". ")))
        elif callout := _CALLOUT_ITEM.match(stripped):
            self.out.append(f"{callout.group(1)}. " + inline(callout.group(2)))
        else:
            self.out.append(inline(stripped) if stripped else "")
        self.prev_blank = not stripped


def _delimiter(line: str) -> str | None:
    """The block delimiter `line` is (a run of one of _DELIMITERS), if any."""
    return next((d for d in _DELIMITERS if line.startswith(d) and set(line) == set(d)), None)


def _close_indented(out: list[str], open_: bool) -> None:
    if open_:
        while out and not out[-1].strip():
            out.pop()
        out.append("```")
        out.append("")
