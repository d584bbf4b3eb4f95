"""The SPA's first screens against their script budget, from a build's Vite manifest.

A screen's script is what the browser downloads before it shows that screen: the chunks its entry
points name and, transitively, every chunk they import statically (a dynamic `import()` waits until
a page opens, so it is not followed). Sizes are gzipped at zlib's default level, as a server sends
them. Both first screens count: signed out (the sign-in form) and signed in (the Cards page).

    functions/venv/bin/python scripts/bundle_budget.py <build directory>   # exit 1 over the budget

Run by the `bundle` suite of scripts/test on the build it makes; `scripts/bench bundle` prints the
same table for a production build."""

from __future__ import annotations

import gzip
import json
import sys
from dataclasses import dataclass
from pathlib import Path

#: The most gzipped script a first screen may download, in KB (1,000 bytes).
BUDGET_KB = 150.0

ENTRY = "index.html"
#: What each first screen loads, as manifest keys (the entry, then the pages' modules it imports
#: dynamically at once): web/src/main.ts mounts these; web/src/data/session.ts reads the profile.
SCREENS: dict[str, tuple[str, ...]] = {
    "sign-in (signed out)": (ENTRY,),
    "Cards (signed in)": (ENTRY, "src/cards/cards.ts", "src/data/profile.ts"),
}
#: Chunks (by name) a screen asks for as it opens but shows itself without: web/src/cards/cardlist.ts
#: previews plain text until Markdown arrives. Reported beside the screen, not in its budget.
BESIDE: dict[str, tuple[str, ...]] = {"Cards (signed in)": ("markdown",)}


@dataclass(frozen=True)
class Chunk:
    file: str  # under the build directory, e.g. assets/index-<hash>.js
    raw: int
    gzipped: int


@dataclass(frozen=True)
class Screen:
    name: str
    chunks: tuple[Chunk, ...]
    beside: tuple[Chunk, ...] = ()

    @property
    def gzipped_kb(self) -> float:
        return sum(c.gzipped for c in self.chunks) / 1000


def read_manifest(dist: Path) -> dict[str, dict]:
    path = dist / ".vite" / "manifest.json"
    if not path.is_file():
        raise SystemExit(f"{path}: no Vite manifest (web/vite.config.ts sets build.manifest)")
    manifest: dict[str, dict] = json.loads(path.read_text())
    return manifest


def chunk(dist: Path, file: str) -> Chunk:
    data = (dist / file).read_bytes()
    return Chunk(file, len(data), len(gzip.compress(data, compresslevel=6, mtime=0)))


def static_closure(manifest: dict[str, dict], keys: tuple[str, ...]) -> list[str]:
    """The script files the browser fetches for these manifest keys: each key's file and those of
    its static imports, transitively, in first-seen order."""
    seen: list[str] = []
    todo = list(keys)
    while todo:
        key = todo.pop(0)
        if key not in manifest:
            raise SystemExit(f"the manifest has no chunk for {key}: did a first-screen module move? (SCREENS)")
        entry = manifest[key]
        if entry["file"] not in seen:
            seen.append(entry["file"])
            todo.extend(entry.get("imports", []))
    return [f for f in seen if f.endswith(".js")]


def screens(dist: Path) -> list[Screen]:
    manifest = read_manifest(dist)
    found = []
    for name, keys in SCREENS.items():
        files = static_closure(manifest, keys)
        named = tuple(k for k, e in manifest.items() if e.get("name") in BESIDE.get(name, ()))
        beside = [f for f in static_closure(manifest, named) if f not in files]
        found.append(Screen(name, tuple(chunk(dist, f) for f in files), tuple(chunk(dist, f) for f in beside)))
    return found


def all_chunks(dist: Path) -> list[Chunk]:
    """Every script chunk of the build, the largest (gzipped) first."""
    files = sorted({e["file"] for e in read_manifest(dist).values() if e["file"].endswith(".js")})
    return sorted((chunk(dist, f) for f in files), key=lambda c: -c.gzipped)


def report(dist: Path) -> tuple[list[str], bool]:
    """The lines to print (every chunk, then each first screen against the budget), and whether
    every first screen is within it."""
    chunks = all_chunks(dist)
    lines = [f"{c.file}: {c.raw / 1000:,.1f} KB, gzipped {c.gzipped / 1000:,.1f} KB" for c in chunks]
    total = sum(c.gzipped for c in chunks) / 1000
    lines.append(f"all {len(chunks)} chunks: {sum(c.raw for c in chunks) / 1000:,.1f} KB, gzipped {total:,.1f} KB")
    within = True
    for s in screens(dist):
        ok = s.gzipped_kb <= BUDGET_KB
        within = within and ok
        lines.append(
            f"first screen {s.name}: {len(s.chunks)} chunks, gzipped {s.gzipped_kb:,.1f} KB"
            f" ({'within' if ok else 'OVER'} the {BUDGET_KB:.0f} KB budget)"
        )
        if s.beside:
            kb = sum(c.gzipped for c in s.beside) / 1000
            lines.append(f"  fetched beside it, not waited for ({', '.join(BESIDE[s.name])}): gzipped {kb:,.1f} KB")
    return lines, within


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: scripts/bundle_budget.py <build directory>", file=sys.stderr)
        return 2
    lines, within = report(Path(argv[0]))
    print("\n".join(lines))
    print(f"bundle: {'within' if within else 'OVER'} the budget")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
