"""Builds eval/citations/citation-pairs.jsonl, the labelled (claim, card) pairs the citation checks
(generation/citation_checks.py) are measured on (admin/citation_evaluation.py, docs/citations.md).

    PYTHONPATH=functions functions/venv/bin/python -m cardchat.admin.citation_pairs \\
        > eval/citations/citation-pairs.jsonl

The cards are the demo deck's (the Git manuals, admin/demo_deck.py) and the python-faq set's (the
standard library's module pages, eval/sets/python-faq.json). From each card's sentences, as the checks
split it (`citation_checks.passages`), a seeded draw makes claims of six kinds, each pair labelled with
the verdict its card owes it:
- `quoted`: the sentence itself: `supported`;
- `paraphrased`: the sentence reworded by rule (`claim_rewrites.paraphrase`): `supported`;
- `reworded`: the sentence reworded by hand, as an answer would put it (eval/citations/reworded.json):
  `supported`;
- `neighbour`: a sentence of the next card of the deck, which this card does not hold: `weak` when both
  cards are of one page (one git command's manual, one Python package), since the card is on topic,
  else `unsupported`;
- `number`, `negation`, `name`: the sentence with one number, one negation or one name changed
  (`claim_rewrites`): `unsupported`, since the card says otherwise.
The same seed and the same cards give the same file; the file is committed, so the gate reads it
without building it again."""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from cardchat.admin import claim_rewrites as rw
from cardchat.admin.evaluation import ROOT, set_cards
from cardchat.generation.citation_checks import passages

SEED = 45
#: Pairs of each kind drawn from each source.
QUOTA = {"quoted": 30, "paraphrased": 30, "neighbour": 30, "number": 25, "negation": 30, "name": 25}
SOURCES = ("git-demo", "python-faq")
KINDS = (*QUOTA, "reworded")
REWORDED = ROOT / "eval" / "citations" / "reworded.json"
_CODE = re.compile(r"::|[=$<>{}\\|#]|\.\.\.|\[\d")


def cards_of(source: str) -> list[dict[str, Any]]:
    """The cards of a source, in the deck's order."""
    if source == "git-demo":
        return set_cards({"deck": "demo"})
    data = json.loads((ROOT / "eval" / "sets" / "python-faq.json").read_text(encoding="utf-8"))
    return list(data["cards"])


def card_text(card: dict[str, Any]) -> str:
    """What a run hands the checks for a card (generation/completion.py: title, blank line, body)."""
    return f"{card['title']}\n\n{card['body']}"


def sentences(card: dict[str, Any]) -> list[str]:
    """The card's sentences fit to be a claim: 8 to 30 words of prose, a capital to a full stop."""
    out = []
    for p in passages(card_text(card))[1:]:  # the first is the title
        words = p.split()
        letters = sum(ch.isalpha() for ch in p) / max(1, len(p.replace(" ", "")))
        if 8 <= len(words) <= 30 and p[0].isupper() and p.endswith(".") and letters > 0.8 and not _CODE.search(p):
            out.append(p)
    return out


def _page(source: str, card: dict[str, Any]) -> str:
    """What a card is about, for `neighbour` labels: a git command's manual (its second tag) or a
    section of the user manual, a howto or a glossary entry, or a Python module's top package."""
    if source == "git-demo":
        tags = card.get("tags") or []
        # a page's parts are numbered: "howto-revert-branch-rebase-2" is of the howto's page
        return str(tags[1]) if len(tags) > 1 else re.sub(r"-\d+$", "", str(card["id"]))
    return re.split(r"[.-]", str(card["id"]).removeprefix("py-"))[0]


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _rewrite(kind: str, rng: random.Random, names: list[str]) -> Callable[[str], str | None]:
    rules: dict[str, Callable[[str], str | None]] = {
        "quoted": lambda s: s,
        "paraphrased": rw.paraphrase,
        "number": lambda s: rw.alter_number(s, rng),
        "negation": lambda s: rw.alter_negation(s, rng),
        "name": lambda s: rw.alter_name(s, rng, names),
    }
    return rules[kind]


def _names(cards: list[dict[str, Any]]) -> list[str]:
    """The names of the source's sentences: capitalised words never written in lower case there
    ("When" at a sentence's or a clause's start is a word, not a name)."""
    found: set[str] = set()
    lower: set[str] = set()
    for card in cards:
        for s in sentences(card):
            found.update(re.findall(r"(?<![\w'.-])[A-Z][A-Za-z]{2,}\b", s))
            lower.update(re.findall(r"\b[a-z]+\b", s))
    return sorted(w for w in found if w.lower() not in lower)


def _neighbour(source: str, cards: list[dict[str, Any]], i: int, rng: random.Random) -> dict[str, Any] | None:
    card, other = cards[i], cards[(i + 1) % len(cards)]
    held = _norm(card_text(card))
    claims = [s for s in sentences(other) if _norm(s) not in held]
    if not claims:
        return None
    claim = rng.choice(claims)
    same = _page(source, card) == _page(source, other)
    return {"claim": claim, "passage": claim, "from_card": other["id"], "expected": "weak" if same else "unsupported"}


def _pair(
    source: str, kind: str, cards: list[dict[str, Any]], i: int, rng: random.Random, names: list[str]
) -> dict[str, Any] | None:
    if kind == "neighbour":
        return _neighbour(source, cards, i, rng)
    own = sentences(cards[i])
    rng.shuffle(own)
    rewrite = _rewrite(kind, rng, names)
    for s in own:
        claim = rewrite(s)
        if claim and (kind == "quoted" or claim != s):
            return {
                "claim": claim,
                "passage": s,
                "expected": "supported" if kind in ("quoted", "paraphrased") else "unsupported",
            }
    return None


def pairs_of(source: str) -> Iterator[dict[str, Any]]:
    """The source's pairs: cards visited in a seeded order, each giving at most one pair, of the next
    kind (in turn) whose quota is not yet met and whose rule finds something to change."""
    cards = cards_of(source)
    rng = random.Random(f"{SEED}-{source}")
    names = _names(cards)
    left = dict(QUOTA)
    order = list(range(len(cards)))
    rng.shuffle(order)
    turn = 0
    for i in order:
        for step in range(len(QUOTA)):
            kind = list(QUOTA)[(turn + step) % len(QUOTA)]
            made = _pair(source, kind, cards, i, rng, names) if left[kind] else None
            if made:
                left[kind] -= 1
                turn = (turn + step + 1) % len(QUOTA)
                yield {
                    "id": f"{source}:{cards[i]['id']}:{kind}",
                    "source": source,
                    "card": cards[i]["id"],
                    "kind": kind,
                    **made,
                }
                break
        if not any(left.values()):
            return


def reworded(source: str) -> Iterator[dict[str, Any]]:
    """The hand-written rewordings of the source's sentences; each names a sentence its card has."""
    cards = {c["id"]: c for c in cards_of(source)}
    for r in json.loads(REWORDED.read_text(encoding="utf-8"))["pairs"]:
        if r["source"] != source:
            continue
        if r["passage"] not in passages(card_text(cards[r["card"]])):
            raise ValueError(f"{r['card']} has no sentence {r['passage']!r}")
        pair = {"claim": r["claim"], "passage": r["passage"], "expected": "supported"}
        yield {"id": f"{source}:{r['card']}:reworded", "source": source, "card": r["card"], "kind": "reworded", **pair}


def main() -> int:
    for source in SOURCES:
        for pair in (*pairs_of(source), *reworded(source)):
            sys.stdout.write(json.dumps(pair, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
