"""The layout of functions/cardchat that .importlinter's contracts cannot state: at most
MAX_ROOT_MODULES modules at the package's root (a concern gets a package, not another loose
module), and no import cycle between any two modules, lazy and type-only imports included.
The acyclic_siblings contract finds cycles between siblings; a package's __init__ importing one
of its own modules that imports it back is not between siblings, so this finds every cycle.

Run by scripts/check (`layout`); prints what is wrong and exits 1, or prints nothing."""

import sys
from pathlib import Path

import grimp

PACKAGE = "cardchat"
ROOT = Path(__file__).resolve().parents[1] / "functions" / PACKAGE
#: __init__ and __main__ count: every *.py file at the root.
MAX_ROOT_MODULES = 6


def root_modules(root: Path = ROOT) -> list[str]:
    return sorted(p.name for p in root.glob("*.py"))


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import graph's strongly connected components of more than one module (Tarjan's,
    iterative): each holds at least one cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.find_modules_directly_imported_by(target)))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def problems() -> list[str]:
    out = []
    modules = root_modules()
    if len(modules) > MAX_ROOT_MODULES:
        out.append(
            f"functions/{PACKAGE}/ holds {len(modules)} modules at its root (at most {MAX_ROOT_MODULES}): "
            f"{', '.join(modules)}; put a new concern in a package"
        )
    for component in cycles(grimp.build_graph(PACKAGE, cache_dir=None)):
        out.append(f"import cycle (lazy imports included) among: {', '.join(component)}")
    return out


if __name__ == "__main__":
    found = problems()
    for problem in found:
        print(problem)
    sys.exit(1 if found else 0)
