"""Builds eval/sets/python-faq.json from Debian's python3.11-doc.

The questions are the headings of the Python FAQ (questions real users
asked often enough for the maintainers to answer them); the cards are the
standard library's module pages. A question's answering cards are labelled
from the FAQ's own cross-references: the module pages its answer points to
with :mod:`x`, :func:`x.y`, :class:`x.Y` and the like. Questions whose
answer names no module page (or more than MAX_LABELS) are left out.

    apt-get download python3.11-doc && dpkg-deb -x python3.11-doc_*.deb doc
    PYTHONPATH=functions python -m cardchat.admin.python_faq_set \\
        doc/usr/share/doc/python3.11/html/_sources > eval/sets/python-faq.json

Card bodies are the page's rST with roles and directives flattened to words,
cut at MAX_BODY characters (the demo deck's card limit): the head of a module
page says what the module is for, which is what these questions ask.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

MAX_BODY = 4000
MAX_LABELS = 3
FAQ_PAGES = ("library", "programming", "general", "design", "extending", "windows", "gui", "installed")
_MODULE = re.compile(r"^\.\. (?:module|currentmodule):: *(\S+)", re.MULTILINE)
_HEADING = re.compile(r"^(\S[^\n]*\?)\n(-{3,}|={3,})\n", re.MULTILINE)
_ROLE_REF = re.compile(r":(?:mod|func|class|meth|exc|data|attr|const):`[~!]?([A-Za-z_][\w.]*)(?:\(\))?`")
_ROLE = re.compile(r":[\w:]+:`(?:[^`<]*<)?([^`>]*)>?`")
_DIRECTIVE = re.compile(r"^\.\. [\w:-]+::.*$|^ *:[\w -]+:.*$|^\.\. [^\n]*$", re.MULTILINE)
_UNDERLINE = re.compile(r"^[=\-~^*#+]{3,}$", re.MULTILINE)


def flatten(rst: str) -> str:
    """rST as plain prose: roles keep their text, directives and underlines go."""
    text = _ROLE.sub(r"\1", rst)
    text = _DIRECTIVE.sub("", text)
    text = _UNDERLINE.sub("", text)
    text = text.replace("``", "").replace("**", "")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def module_pages(library: Path) -> tuple[list[dict[str, str]], dict[str, str]]:
    """One card per library page that documents a module; module name -> card id."""
    cards: list[dict[str, str]] = []
    owner: dict[str, str] = {}
    for page in sorted(library.glob("*.rst.txt")):
        rst = page.read_text(encoding="utf-8")
        modules = [m for m in _MODULE.findall(rst) if not m.startswith("None")]
        if not modules:
            continue
        card_id = "py-" + page.name.removesuffix(".rst.txt")
        lines = [ln for ln in flatten(rst).splitlines()]
        title = lines[0].strip() if lines else card_id
        body = "\n".join(lines[1:]).strip()[:MAX_BODY]
        cards.append({"id": card_id, "title": title.replace("---", "—"), "body": body})
        for m in modules:
            owner.setdefault(m, card_id)
    return cards, owner


def _labels(answer: str, owner: dict[str, str]) -> list[str]:
    found: list[str] = []
    for name in _ROLE_REF.findall(answer):
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            card = owner.get(".".join(parts[:n]))
            if card is not None:
                if card not in found:
                    found.append(card)
                break
    return found


def faq_queries(faq: Path, owner: dict[str, str]) -> list[dict[str, Any]]:
    queries: list[dict[str, Any]] = []
    for name in FAQ_PAGES:
        rst = (faq / f"{name}.rst.txt").read_text(encoding="utf-8")
        heads = list(_HEADING.finditer(rst))
        for i, head in enumerate(heads):
            end = heads[i + 1].start() if i + 1 < len(heads) else len(rst)
            # The answer runs to the next question or section heading.
            answer = re.split(r"\n\S[^\n]*\n[=\-]{3,}\n", rst[head.end() : end])[0]
            labels = _labels(answer, owner)
            if 0 < len(labels) <= MAX_LABELS:
                queries.append({"query": _ROLE.sub(r"\1", head.group(1)), "relevant": labels, "kind": f"faq-{name}"})
    return queries


def build(sources: Path) -> dict[str, Any]:
    cards, owner = module_pages(sources / "library")
    return {
        "name": "python-faq",
        "language": "en",
        "description": (
            "Questions from the Python 3.11 FAQ over the standard library's module pages; the answering "
            "pages are the modules each FAQ answer cross-references. Source: Debian package python3.11-doc "
            "3.11.2 (html/_sources), Python Software Foundation License; built by "
            "cardchat.admin.python_faq_set. Held out: not used to tune the ranker."
        ),
        "cards": cards,
        "queries": faq_queries(sources / "faq", owner),
    }


if __name__ == "__main__":
    json.dump(build(Path(sys.argv[1])), sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
