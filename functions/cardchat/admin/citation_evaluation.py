"""How well the citation checks (generation/citation_checks.py) judge labelled (claim, card) pairs:
eval/citations/citation-pairs.jsonl (built by admin/citation_pairs.py), each labelled with the
verdict its card owes the claim.

The pairs are split into two fixed halves by a hash of their id: `fit`, the only half any threshold
of the checks may be chosen on, and `held-out`, whose figures are published (docs/citations.md) and
held by the gate (tests/admin/test_citation_eval.py) at the floor in eval/citations/floor.json.

For each kind of pair and for all of them, on each half: the precision and recall of `supported` and
of `unsupported` (a verdict's precision: of the pairs given it, the share labelled with it; its
recall: of the pairs labelled with it, the share given it), the recall of `marked` (of the pairs
whose card does not say the claim, labelled `weak` or `unsupported`, the share not given `supported`:
the SPA marks them), and how many pairs were given each verdict. A figure with nothing to count (no
pair labelled or given that verdict) is None."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardchat.admin.evaluation import ROOT

PAIRS = ROOT / "eval" / "citations" / "citation-pairs.jsonl"
FLOOR = ROOT / "eval" / "citations" / "floor.json"
HALVES = ("fit", "held-out")
VERDICTS = ("supported", "weak", "unsupported")


@dataclass(frozen=True)
class Pair:
    id: str
    source: str
    card: str
    kind: str
    claim: str
    expected: str

    @property
    def half(self) -> str:
        """Fixed by the id alone: a pair added later never moves another between halves."""
        return HALVES[int(hashlib.sha256(self.id.encode()).hexdigest(), 16) % 2]


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Pair(r["id"], r["source"], r["card"], r["kind"], r["claim"], r["expected"]) for r in rows]


def card_texts(pairs: Sequence[Pair]) -> dict[tuple[str, str], str]:
    """(source, card id) → the card's text as a run hands it to the checks."""
    from cardchat.admin.citation_pairs import card_text, cards_of

    out: dict[tuple[str, str], str] = {}
    for source in sorted({p.source for p in pairs}):
        wanted = {p.card for p in pairs if p.source == source}
        out.update({(source, c["id"]): card_text(c) for c in cards_of(source) if c["id"] in wanted})
    missing = {(p.source, p.card) for p in pairs} - set(out)
    if missing:
        raise ValueError(f"citation pairs name cards their source lacks: {sorted(missing)[:5]}")
    return out


def judge(pairs: Sequence[Pair], vectors: Any = None) -> list[str]:
    """Each pair's verdict, as an answer's check gives it (`citation_checks.verdict` over the card's
    passages), with the process's MiniLM vectors unless others are given."""
    from cardchat.generation import citation_checks as cc

    vectors = vectors or cc.shared_vectors()
    texts = card_texts(pairs)
    split = {key: cc.passages(text) for key, text in texts.items()}
    return [cc.verdict(p.claim, split[(p.source, p.card)], vectors) for p in pairs]


@dataclass(frozen=True)
class Figures:
    pairs: int
    given: dict[str, int]  # verdict → pairs given it
    precision: dict[str, float | None]  # of supported and unsupported
    recall: dict[str, float | None]  # of supported, unsupported and marked


def figures(labels: Sequence[str], verdicts: Sequence[str]) -> Figures:
    given = Counter(verdicts)
    both = Counter(v for v, lab in zip(verdicts, labels) if v == lab)
    labelled = Counter(labels)
    marked = sum(v != "supported" for v, lab in zip(verdicts, labels) if lab != "supported")
    return Figures(
        pairs=len(labels),
        given={v: given[v] for v in VERDICTS},
        precision={v: both[v] / given[v] if given[v] else None for v in ("supported", "unsupported")},
        recall={
            **{v: both[v] / labelled[v] if labelled[v] else None for v in ("supported", "unsupported")},
            "marked": marked / (len(labels) - labelled["supported"]) if len(labels) > labelled["supported"] else None,
        },
    )


def by_kind(pairs: Sequence[Pair], verdicts: Sequence[str], half: str) -> dict[str, Figures]:
    """Figures per kind of pair on one half, and over the whole half as `all`."""
    from cardchat.admin.citation_pairs import KINDS

    picked = [(p, v) for p, v in zip(pairs, verdicts) if p.half == half]
    out = {}
    for kind in (*KINDS, "all"):
        some = [(p, v) for p, v in picked if kind in ("all", p.kind)]
        out[kind] = figures([p.expected for p, _ in some], [v for _, v in some])
    return out


def _cell(x: float | None) -> str:
    return "  n/a" if x is None else f"{x:.3f}"


def table(per_kind: dict[str, Figures], title: str) -> str:
    head = "| kind | pairs | supported P | supported R | unsupported P | unsupported R | marked R | given s / w / u |"
    lines = [f"### {title}", "", head, "|" + "---|" * 8]
    for kind, f in per_kind.items():
        g = f.given
        lines.append(
            f"| {kind} | {f.pairs} | {_cell(f.precision['supported'])} | {_cell(f.recall['supported'])} | "
            f"{_cell(f.precision['unsupported'])} | {_cell(f.recall['unsupported'])} | {_cell(f.recall['marked'])} | "
            f"{g['supported']} / {g['weak']} / {g['unsupported']} |"
        )
    return "\n".join(lines)


def misjudged(pairs: Sequence[Pair], verdicts: Sequence[str], half: str) -> list[tuple[Pair, str]]:
    return [(p, v) for p, v in zip(pairs, verdicts) if p.half == half and v != p.expected]


def published(per_kind: dict[str, Figures]) -> dict[str, dict[str, float]]:
    """Every figure of a table that has something to count, rounded down to 3 places: the floor."""
    out: dict[str, dict[str, float]] = {}
    for kind, f in per_kind.items():
        named = {f"precision {v}": x for v, x in f.precision.items()} | {f"recall {v}": x for v, x in f.recall.items()}
        out[kind] = {name: math.floor(x * 1000) / 1000 for name, x in named.items() if x is not None}
    return out


def floor(path: Path = FLOOR) -> dict[str, dict[str, float]]:
    """The published held-out figures the gate holds: kind → figure name → at least."""
    data: dict[str, dict[str, float]] = json.loads(path.read_text(encoding="utf-8"))["held-out"]
    return data


def below_floor(per_kind: dict[str, Figures], published: dict[str, dict[str, float]]) -> list[str]:
    """Each published figure the held-out half no longer reaches, said in a line."""
    out = []
    for kind, wanted in published.items():
        f = per_kind[kind]
        for name, least in wanted.items():
            which, verdict = name.split(" ")  # "precision supported"
            got = (f.precision if which == "precision" else f.recall)[verdict]
            if got is None or got < least - 1e-9:
                out.append(f"{kind}: {name} {_cell(got)} < published {least:.3f}")
    return out


#: The values the `SAYS_*` thresholds of the checks are chosen from, on the fit half (`fit`).
GRID = {
    "SAYS_COSINE": (0.6, 0.7, 0.75, 0.8, 0.85, 0.9),
    "SAYS_SHARE": (0.3, 0.4, 0.5, 0.6),
    "SAYS_SHARE_ALONE": (0.85, 0.95),
}


@contextmanager
def _thresholds(values: dict[str, float]) -> Iterator[None]:
    """The checks' module thresholds set to `values` for a while (this process only)."""
    from cardchat.generation import citation_checks as cc

    before = {name: getattr(cc, name) for name in values}
    try:
        for name, value in values.items():
            setattr(cc, name, value)
        yield
    finally:
        for name, value in before.items():
            setattr(cc, name, value)


def fit(pairs: Sequence[Pair]) -> tuple[dict[str, float], list[tuple[dict[str, float], Figures]]]:
    """The thresholds of GRID with the highest precision of `supported` on the fit half among those
    whose recall of it is at least the current thresholds'; of equals, the nearest to the current
    ones. Returns the choice and every setting's figures."""
    from cardchat.generation import citation_checks as cc

    half = [p for p in pairs if p.half == "fit"]
    labels = [p.expected for p in half]
    now = {name: float(getattr(cc, name)) for name in GRID}
    base = figures(labels, judge(half))
    tried = []
    for combo in itertools.product(*GRID.values()):
        values = dict(zip(GRID, combo))
        with _thresholds(values):
            tried.append((values, figures(labels, judge(half))))
    kept = [(v, f) for v, f in tried if (f.recall["supported"] or 0) >= (base.recall["supported"] or 0)]

    def rank(vf: tuple[dict[str, float], Figures]) -> tuple[float, float]:
        return vf[1].precision["supported"] or 0.0, -sum(abs(vf[0][n] - now[n]) for n in GRID)

    best = max(kept, key=rank)
    return best[0], tried


def _print_fit(pairs: Sequence[Pair]) -> int:
    choice, tried = fit(pairs)
    print("fit half: supported P / supported R / marked R for each setting of", ", ".join(GRID))
    for values, f in sorted(tried, key=lambda vf: -(vf[1].precision["supported"] or 0)):
        cells = " / ".join(_cell(x) for x in (f.precision["supported"], f.recall["supported"], f.recall["marked"]))
        print(f"{tuple(values.values())}: {cells}")
    print("chosen:", ", ".join(f"{n} = {v}" for n, v in choice.items()))
    return 0


def main(write_floor: bool = False, fit_half: bool = False) -> int:
    """Print both halves' tables and the held-out pairs misjudged; with `write_floor`, publish the
    held-out figures as the new floor; else fail (1) when one is below the floor. With `fit_half`,
    print the fit of the thresholds instead."""
    pairs = load_pairs()
    if fit_half:
        return _print_fit(pairs)
    verdicts = judge(pairs)
    held_out = by_kind(pairs, verdicts, "held-out")
    for half in HALVES:
        print(table(by_kind(pairs, verdicts, half), f"citation checks, {half} half ({PAIRS.name})"), end="\n\n")
    print("held-out pairs judged otherwise than labelled (kind, label → verdict: claim | card):")
    for p, v in misjudged(pairs, verdicts, "held-out"):
        print(f"- {p.kind}, {p.expected} → {v}: {p.claim} | {p.source}:{p.card}")
    if write_floor:
        FLOOR.write_text(json.dumps({"held-out": published(held_out)}, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {FLOOR.relative_to(ROOT)}")
        return 0
    failed = below_floor(held_out, floor())
    for line in failed:
        print(f"BELOW THE PUBLISHED FLOOR: {line}")
    return 1 if failed else 0
