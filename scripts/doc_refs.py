"""Resolves what the docs and comments name in the code, so that a move or a rename fails
`scripts/check` instead of leaving a doc that points at nothing.

Where it looks: the backticked spans of README.md, CONTRIBUTING.md, docs/*.md and eval/README.md
(each span split at blanks and `=`), and every word of the comments and docstrings of the Python
in functions/, scripts/ and benchmarks/ (there without backticks).

Three kinds of reference, each resolved one way:

1. A path: a word with a `/` that ends in an extension some tracked file has (`.py`, `.ts`,
   `.md`, ...) or whose first segment is ours (a top-level entry of the repository, a package of
   functions/cardchat, a folder of web/src). It names a tracked file or folder from one of the
   bases: the repository root, `functions/cardchat/`, `functions/`, `web/src/`, or the folder of
   the file that names it (so `repo/cards.py`, `chat/pincontrols.ts`, eval's `sets/<name>.json`).
   A bare file name of code (`engine.py`, `pool.ts`; .py, .ts, .mjs, .js) names some tracked file of
   that name. In comments, a word without an extension is a path only when its first segment is a
   top-level entry (`scripts/dev`): prose says "cards/s" and "and/or".
2. A dotted name, `a.b.c` or `folder/a.b` (a trailing `()` is dropped): its longest leading parts
   that name one of our Python modules are the module (a module of functions/, scripts/,
   benchmarks/ or tests/, known by any of its last dotted parts: `turns`, `chat.turns`,
   `cardchat.chat.turns`); the next part must be defined at that module's top level (def, class,
   assignment; an import only where the module re-exports it: a package's `__init__`, a name in
   `__all__` such as `main.sweepAnswers`), found with `ast`, never by importing it. When that is a
   class, the part
   after it must be bound in the class's body (or a base's). A name whose first part is a class
   of ours (`Card.visible_to`) is checked the same way.
3. `<file>.py:<name>`: the file as in 1, the name bound at its top level as in 2. `<file>.ts:<name>`
   (or `:<Class>.<method>`): the file as in 1, the name declared in it (function, const, class,
   or a method of that class), found by a pattern, never by compiling it.

What is not ours is skipped, by one rule each, not by a list: a dotted name whose first part
names none of our modules or classes (`os.nice`, `hosting.headers`, `example.com`); a word with
a placeholder or pattern (`<`, `{`, `*`, `~`, `@`, `[`, `://`, `$`); a word that is a parameter's
attribute in the function around a comment (`<parameter>.owner`); a path git ignores, or an untracked one
under a hidden name (local files: `functions/venv/...`, `.cache/...`, `functions/.env`).
Prints path:line: reference -- reason and exits 1 if any reference does not resolve.

    python3 scripts/doc_refs.py
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "CONTRIBUTING.md", "docs/*.md", "eval/README.md")
CODE = ("functions/", "scripts/", "benchmarks/")
BASES = ("", "functions/cardchat/", "functions/", "web/src/")
MODULE_ROOTS = {"functions/": "", "scripts/": "scripts.", "benchmarks/": "benchmarks.", "tests/": "tests."}
_SKIP = re.compile(r"[<{*~@\[$]|://")
_SPAN = re.compile(r"`([^`\n]+)`")
# The words that could be a reference: a path, a dotted name or a file and a name.
_MAYBE = re.compile(r"\S*[/.:]\S*")
_DOTTED = re.compile(r"(?:[\w-]+/)*[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# Punctuation around a word in prose, never part of a name (a leading dot is: `.importlinter`).
_LEAD = "\"'`(["
_TRAIL = "\"'`,;:.!?)]"
_POSSESSIVE = re.compile(r"`?'s$")
_CODE_EXTENSIONS = (".py", ".ts", ".mjs", ".js")


@dataclass
class Module:
    path: str
    tree: ast.Module

    @cached_property
    def names(self) -> dict[str, ast.stmt]:
        """What the module defines, and what it re-exports: all it imports when it is a package's
        `__init__`, else the imports its `__all__` names (functions/main.py's endpoints)."""
        found = bindings(self.tree.body)
        public = set(found) if self.path.endswith("/__init__.py") else exported(self.tree)
        return {k: v for k, v in found.items() if k in public or not isinstance(v, (ast.Import, ast.ImportFrom))}


def exported(tree: ast.Module) -> set[str]:
    """The names a module's `__all__` lists."""
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, (ast.List, ast.Tuple)):
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def bindings(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """Names a block binds at its own level (its if/try/with blocks included), each to its statement."""
    found: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found[name.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = node
        for block in ("body", "orelse", "finalbody", "handlers"):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for inner in getattr(node, block, []):
                    found.update(bindings(inner.body if isinstance(inner, ast.ExceptHandler) else [inner]))
    return found


@dataclass
class Repo:
    root: Path
    files: set[str]
    folders: set[str] = field(default_factory=set)
    modules: dict[str, list[Module]] = field(default_factory=dict)
    trees: dict[str, ast.Module] = field(default_factory=dict)
    classes: dict[str, list[ast.ClassDef]] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path, files: set[str]) -> Repo:
        repo = cls(root, files)
        for name in files:
            parts = name.split("/")
            repo.folders |= {"/".join(parts[:i]) for i in range(1, len(parts))}
            if name.endswith(".py"):
                repo._add_module(name)
        return repo

    def _add_module(self, name: str) -> None:
        prefix = next((p for p in MODULE_ROOTS if name.startswith(p)), None)
        if prefix is None:
            return
        try:
            tree = ast.parse((self.root / name).read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, FileNotFoundError):
            return
        self.trees[name] = tree
        dotted = (MODULE_ROOTS[prefix] + name[len(prefix) : -3].replace("/", ".")).removesuffix(".__init__")
        module = Module(name, tree)
        parts = dotted.split(".")
        for i in range(len(parts)):
            self.modules.setdefault(".".join(parts[i:]), []).append(module)
        # Classes at the top and inside classes: one defined inside a function is no name a doc can give.
        blocks = [tree.body]
        while blocks:
            for node in blocks.pop():
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append(node)
                    blocks.append(node.body)

    @cached_property
    def extensions(self) -> set[str]:
        return {Path(f).suffix for f in self.files if Path(f).suffix}

    @cached_property
    def ours(self) -> set[str]:
        """First segments that make a path ours: top-level entries, the domain's packages, the SPA's folders."""
        packages = {f.split("/")[2] for f in self.files if f.startswith("functions/cardchat/") and f.count("/") > 2}
        spa = {f.split("/")[2] for f in self.files if f.startswith("web/src/") and f.count("/") > 2}
        return self.tops | packages | spa

    @cached_property
    def tops(self) -> set[str]:
        return {f.split("/")[0] for f in self.files}

    @cached_property
    def basenames(self) -> set[str]:
        return {f.rsplit("/", 1)[-1] for f in self.files}

    def exists(self, path: str, here: str) -> bool:
        path = path.rstrip("/")
        bases = BASES + (here + "/" if here else "",)
        return any(base + path in self.files or base + path in self.folders for base in bases)


def clean(word: str) -> str:
    """The word without the prose around it: quotes, parentheses, a possessive, a sentence's end."""
    word = _POSSESSIVE.sub("", word.lstrip(_LEAD))
    return word if word.endswith("()") else word.rstrip(_TRAIL)


def is_path(word: str, repo: Repo, prose: bool) -> bool:
    """A path, by rule 1; in prose (comments) a word without an extension must start at the root."""
    if Path(word.rstrip("/")).suffix in repo.extensions:
        return True
    first = word.split("/")[0]
    return "/" in word and first in (repo.tops if prose else repo.ours) and not _DOTTED.fullmatch(word)


def check_path(word: str, repo: Repo, here: str) -> str | None:
    if "/" in word:
        if repo.exists(word, here) or any(s.startswith(".") and s != ".." for s in word.split("/")):
            return None  # What is not tracked under a hidden name is local (`functions/.env`).
        return "no such file or folder"
    if not word.endswith(_CODE_EXTENSIONS):
        return None  # A bare name of another kind is someone's file (`readme.md`, a client's config).
    return None if word in repo.basenames else "no tracked file has this name"


def class_has(repo: Repo, node: ast.ClassDef, name: str, seen: set[str]) -> bool:
    """Whether a class binds name in its body or in one of its bases that are ours."""
    if name in bindings(node.body):
        return True
    seen.add(node.name)
    for base in node.bases:
        ours = repo.classes.get(base.id, []) if isinstance(base, ast.Name) and base.id not in seen else []
        if any(class_has(repo, b, name, seen) for b in ours):
            return True
    return False


def check_names(repo: Repo, owners: list[ast.stmt | Module], rest: list[str]) -> str | None:
    """Follows rest through modules and classes; the first part none of the owners binds is the error."""
    for part in rest:
        found: list[ast.stmt | Module] = []
        for owner in owners:
            if isinstance(owner, Module):
                if part in owner.names:
                    found.append(owner.names[part])
            elif isinstance(owner, ast.ClassDef) and class_has(repo, owner, part, set()):
                found.append(bindings(owner.body).get(part) or owner)
        if not found:
            where = ", ".join(sorted({o.path if isinstance(o, Module) else getattr(o, "name", "?") for o in owners}))
            return f"{part} is not defined in {where}"
        if not any(isinstance(f, ast.ClassDef) for f in found):
            return None  # A function's or a value's attributes are not followed.
        owners = [f for f in found if isinstance(f, ast.ClassDef)]
    return None


def check_dotted(word: str, repo: Repo) -> str | None:
    parts = word.replace("/", ".").removesuffix("()").split(".")
    for i in range(len(parts), 0, -1):
        modules = repo.modules.get(".".join(parts[:i]))
        if modules:
            return check_names(repo, list(modules), parts[i:])
    if parts[0] in repo.classes:
        return check_names(repo, list(repo.classes[parts[0]]), parts[1:])
    return None


def check_word(word: str, repo: Repo, here: str, variables: frozenset[str] = frozenset()) -> str | None:
    """Why a word does not resolve, or None (also for a word that is no reference of ours).

    variables: the parameters of the function around a comment, whose attributes are no module's."""
    word = clean(word)
    if not word or _SKIP.search(word):
        return None
    if re.fullmatch(r"[\w./-]+\.py:\w+", word):
        return check_file_name(word, repo, here)
    if re.fullmatch(r"[\w./-]+\.ts:[\w.]+", word):
        return check_ts_name(word, repo, here)
    if is_path(word, repo, prose=bool(variables)):
        return check_path(word, repo, here)
    if _DOTTED.fullmatch(word.removesuffix("()")) and word.split(".")[0] not in variables:
        return check_dotted(word, repo)
    return None


def check_file_name(word: str, repo: Repo, here: str) -> str | None:
    """`<file>.py:<name>`: the file by rule 1, then the name at its top level (a line number is not followed)."""
    file, name = word.rsplit(":", 1)
    if why := check_path(file, repo, here):
        return why
    modules = {m.path: m for ms in repo.modules.values() for m in ms if ("/" + m.path).endswith("/" + file)}
    if name.isdigit() or not modules:
        return None
    return check_names(repo, list(modules.values()), [name])


def check_ts_name(word: str, repo: Repo, here: str) -> str | None:
    """`<file>.ts:<name>`: the file by rule 1, then `name` declared in it (`Class.method`: a method of that class)."""
    file, name = word.rsplit(":", 1)
    if why := check_path(file, repo, here):
        return why
    found = [ROOT / base / file for base in ("", "web/src") if (ROOT / base / file).is_file()]
    if not found:
        return None
    source = found[0].read_text(encoding="utf-8")
    *owner, last = name.split(".")
    declared = re.search(rf"\b(?:function|const|let|class)\s+{re.escape(last)}\b", source)
    method = re.search(rf"^\s*(?:(?:public|private|protected|static|async)\s+)*{re.escape(last)}\s*\(", source, re.M)
    if owner and not re.search(rf"\bclass\s+{re.escape(owner[0])}\b", source):
        return f"no class {owner[0]} in {file}"
    return None if declared or (owner and method) else f"{name} is not declared in {file}"


#: A section a generator writes from data (scripts/gen-common), which its own tests hold to the code:
#: its backticked words are field paths and collection names, not references to resolve.
_GENERATED = re.compile(r"<!-- (\w+): generated .*?<!-- /\1 -->", re.S)


def doc_words(text: str) -> Iterator[tuple[int, str, frozenset[str]]]:
    text = _GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for n, line in enumerate(text.splitlines(), 1):
        for span in _SPAN.findall(line):
            for word in re.split(r"[\s=]+", span):
                yield n, word, frozenset()


def code_words(text: str, tree: ast.Module | None = None) -> Iterator[tuple[int, str, frozenset[str]]]:
    """(line, word, parameters around it) of the words of a module's comments and string statements
    that could be a reference (they hold a `/`, a `.` or a `:`)."""
    try:
        tree = tree or ast.parse(text)
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (SyntaxError, tokenize.TokenError):
        return
    scopes, texts = [], []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            scopes.append((node.lineno, node.end_lineno or node.lineno, params))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            texts += [(node.lineno + i, line, node.lineno) for i, line in enumerate(node.value.value.splitlines())]
    texts += [(t.start[0], t.string, t.start[0]) for t in tokens if t.type == tokenize.COMMENT]
    for n, line, anchor in texts:
        for word in _MAYBE.findall(line):
            variables = {"_"}.union(*(args for start, end, args in scopes if start <= anchor <= end))
            yield n, word, frozenset(variables)


def scan(repo: Repo, names: list[str]) -> list[str]:
    """path:line: word -- reason for every reference in the named files that does not resolve."""
    candidates = []
    for name in names:
        text = (repo.root / name).read_text(encoding="utf-8")
        words = doc_words(text) if name.endswith(".md") else code_words(text, repo.trees.get(name))
        here = name.rsplit("/", 1)[0] if "/" in name else ""
        found = [(name, n, clean(word), why) for n, word, vs in words if (why := check_word(word, repo, here, vs))]
        candidates += sorted(found, key=lambda hit: hit[1])
    ignored = git_ignored(repo.root, [w for _, _, w, _ in candidates])
    return [f"{name}:{n}: {word} -- {why}" for name, n, word, why in candidates if word not in ignored]


def git_ignored(root: Path, paths: list[str]) -> set[str]:
    """The paths git ignores, or that lie in a folder it ignores (asked of each folder on the way)."""
    prefixes = {p: ["/".join(p.split("/")[:i]) for i in range(1, p.count("/") + 2)] for p in paths}
    # git refuses a path beyond a symbolic link (functions/venv): the link itself is asked instead.
    asked = {
        q
        for qs in prefixes.values()
        for q in qs
        if not any((root / q).parents[i].is_symlink() for i in range(q.count("/")))
    }
    if not asked:
        return set()
    out = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=root,
        input="\n".join(sorted(asked)),
        capture_output=True,
        text=True,
    )
    hits = set(out.stdout.splitlines())
    return {p for p, qs in prefixes.items() if hits.intersection(qs)}


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True).stdout
    return [n for n in out.decode().split("\0") if n and (root / n).exists()]


def scanned(files: list[str], root: Path) -> list[str]:
    docs = {str(p.relative_to(root)) for pattern in DOCS for p in root.glob(pattern)}
    code = [f for f in files if f.endswith(".py") and f.startswith(CODE)]
    return sorted(docs & set(files)) + code


def main() -> int:
    files = tracked(ROOT)
    repo = Repo.load(ROOT, set(files))
    report = scan(repo, scanned(files, ROOT))
    if report:
        print("\n".join(report))
        print(f"{len(report)} reference(s) that name nothing: fix the doc or the comment", file=sys.stderr)
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main())
