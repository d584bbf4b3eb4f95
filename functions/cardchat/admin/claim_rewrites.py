"""How the citation set (admin/citation_pairs.py) turns a card's sentence into a claim: reworded so
that it says the same, or altered by one number, one negation or one name so that it no longer does.

Each rewrite returns None when its rule finds nothing safe to change: a sentence is then not used for
that kind, rather than given a rewrite that is not one. The paraphrase's word table keeps only
replacements that say the same in a manual's sentence (no noun that is also a verb, like "changes",
and no number word, which the checker reads as a number)."""

from __future__ import annotations

import random
import re

_SYNONYMS = {
    "displays": "shows",
    "display": "show",
    "shows": "displays",
    "removes": "deletes",
    "remove": "delete",
    "removed": "deleted",
    "creates": "makes",
    "create": "make",
    "created": "made",
    "modify": "change",
    "modifies": "alters",
    "modified": "altered",
    "ignored": "skipped",
    "useful": "handy",
    "typically": "usually",
    "usually": "normally",
    "normally": "usually",
    "additionally": "also",
    "therefore": "so",
    "multiple": "several",
    "whether": "if",
    "contains": "holds",
    "contain": "hold",
    "provides": "offers",
    "provide": "offer",
    "currently": "at present",
    "entire": "whole",
    "whole": "entire",
    "begins": "starts",
    "begin": "start",
    "obtain": "get",
    "retrieve": "fetch",
    "retrieves": "fetches",
    "directory": "folder",
    "directories": "folders",
    "commonly": "often",
    "frequently": "often",
    "prevents": "stops",
    "prevent": "stop",
    "ensures": "makes sure",
    "ensure": "make sure",
    "requires": "needs",
    "require": "need",
    "required": "needed",
    "attempts": "tries",
    "attempt": "try",
    "indicates": "shows",
    "indicate": "show",
    "appropriate": "suitable",
    "additional": "extra",
    "previously": "earlier",
    "previous": "earlier",
    "subsequent": "later",
    "initial": "starting",
    "enables": "turns on",
    "disables": "turns off",
    "prints": "outputs",
    "stored": "kept",
    "stores": "keeps",
    "simply": "just",
    "specified": "given",
    "specify": "give",
    "specifies": "gives",
    "various": "different",
    "large": "big",
    "quickly": "fast",
    "describes": "explains",
    "describe": "explain",
    "described": "explained",
    "supports": "handles",
    "optionally": "if wanted",
    "identical": "the same",
    "unless": "except when",
    "perform": "carry out",
    "performs": "carries out",
    "performed": "carried out",
    "necessary": "needed",
    "modification": "change",
    "modifications": "changes",
}
_PHRASES = [
    (r"\ballows (you|users|one|the user) to\b", r"lets \1"),
    (r"\ballow (you|users|one|the user) to\b", r"let \1"),
    (r"\bin order to\b", "to"),
    (r"\bis able to\b", "can"),
    (r"\bis used to\b", "serves to"),
    (r"\bare used to\b", "serve to"),
    (r"\binstead of\b", "rather than"),
    (r"\be\.g\.", "for example"),
    (r"\bi\.e\.", "that is"),
    (r"\bsuch as\b", "like"),
    (r"\bas well as\b", "and also"),
    (r"\ba lot of\b", "many"),
    (r"\bit is possible to\b", "you can"),
]
_WORD = re.compile(r"[A-Za-z]+")


def _match_case(word: str, new: str) -> str:
    return new[0].upper() + new[1:] if word[0].isupper() else new


def _swap_clauses(text: str) -> str | None:
    """ "If A, B." → "B if A.": the condition after the statement; only when B starts with a common word."""
    m = re.fullmatch(r"(If|When|Unless) ([^,]{8,}), ([a-z]+)( [^,]*?)([.!?])", text)
    if not m or m.group(3) == "git":
        return None
    return f"{m.group(3).capitalize()}{m.group(4)} {m.group(1).lower()} {m.group(2)}{m.group(5)}"


def _in_code(text: str, m: re.Match[str]) -> bool:
    """A word that is part of a name (`os.remove`, `--show-origin`, `git show`, `git bundle create`) is
    not a word to replace."""
    before, after = text[max(0, m.start() - 40) : m.start()], text[m.end() : m.end() + 1]
    return bool(re.search(r"[._/-]$|\bgit (?:[a-z-]+ )?$", before)) or after in {"_", "(", "-", "/"}


def paraphrase(text: str) -> str | None:
    """The sentence reworded: the condition moved after the statement, set phrases and words replaced
    by ones that mean the same; None when fewer than three changes were found (a near copy), the
    condition moved counting for two."""
    changes = 0
    swapped = _swap_clauses(text)
    if swapped:
        text, changes = swapped, 2
    for pattern, new in _PHRASES:
        text, n = re.subn(pattern, new, text, flags=re.I)
        changes += n

    def one(m: re.Match[str]) -> str:
        nonlocal changes
        word = m.group(0)
        new = _SYNONYMS.get(word.lower())
        if new is None or (word[0].isupper() and m.start() > 0) or _in_code(text, m):
            return word
        changes += 1
        return _match_case(word, new)

    text = _WORD.sub(one, text)
    return text if changes >= 3 else None


_NUMBER = re.compile(r"(?<![\w.\-/:])\d+(?![\w\-/:]|\.\d)")
_NUMBER_WORDS = {
    "two": "three",
    "three": "four",
    "four": "five",
    "five": "six",
    "six": "eight",
    "ten": "twelve",
    "twice": "three times",
    "once": "twice",
    "first": "second",
    "second": "third",
    "third": "fourth",
}


def alter_number(text: str, rng: random.Random) -> str | None:
    """One number of the sentence changed (a standalone one, not part of a name such as UTF-8 or
    SHA-1, nor a version); None when it has none."""
    spots: list[tuple[int, int, str]] = []
    for m in _NUMBER.finditer(text):
        n = int(m.group(0))
        spots.append((m.start(), m.end(), str(n + 1 if n < 10 else n * 2)))
    for m in re.finditer(r"\b[A-Za-z]+\b", text):
        new = _NUMBER_WORDS.get(m.group(0).lower())
        if new and m.start() > 0:
            spots.append((m.start(), m.end(), new))
    if not spots:
        return None
    start, end, new = rng.choice(sorted(spots))
    return text[:start] + new + text[end:]


_REMOVE = [
    (r"\bcannot\b", "can"),
    (r"\bcan't\b", "can"),
    (r"\b(is|are|was|were|does|do|did|will|should|must|may|can|could|would|has|have) not\b", r"\1"),
    (r"\b(is|are|does|do|did|was|were|will|should|could|would|has|have)n't\b", r"\1"),
    (r"\bnever\b", "always"),
]
_INSERT = [
    (r"\b(is|are|will|must|should|may|does|can)\b(?! not\b)", None),
]


def alter_negation(text: str, rng: random.Random) -> str | None:
    """The sentence's one negation taken away, or one added after its first auxiliary verb; None when
    it has more than one negation or no auxiliary to negate."""
    negations = re.findall(r"\b(?:not|never|cannot|no|none|nothing|neither|nor|without)\b|n't\b", text)
    if len(negations) > 1:
        return None
    if negations:
        for pattern, new in _REMOVE:
            out, n = re.subn(pattern, new, text, count=1)
            if n:
                return out
        return None
    spots = [m for m in re.finditer(_INSERT[0][0], text) if m.start() > 0]
    if not spots:
        return None
    m = spots[0]
    word = "cannot" if m.group(0) == "can" else f"{m.group(0)} not"
    return text[: m.start()] + word + text[m.end() :]


_COMMAND_SWAPS = {
    "rebase": "merge",
    "merge": "rebase",
    "commit": "stash",
    "stash": "commit",
    "push": "fetch",
    "fetch": "push",
    "pull": "clone",
    "clone": "pull",
    "log": "show",
    "show": "log",
    "diff": "status",
    "status": "diff",
    "add": "rm",
    "rm": "add",
    "checkout": "switch",
    "switch": "checkout",
    "branch": "tag",
    "tag": "branch",
    "reset": "revert",
    "revert": "reset",
    "am": "apply",
    "apply": "am",
    "bisect": "blame",
    "blame": "bisect",
    "grep": "describe",
    "describe": "grep",
    "gc": "fsck",
    "fsck": "gc",
    "config": "notes",
    "notes": "config",
}


def alter_name(text: str, rng: random.Random, names: list[str]) -> str | None:
    """One name of the sentence swapped for another: a git command for another (`git rebase` for
    `git merge`), else one of `names` (citation_pairs: words of the cards that are never written in
    lower case, "Alice", "SHA", "OSError") for another of them that the sentence lacks, of the same
    case; None when it names nothing."""
    commands = [
        m
        for m in re.finditer(r"\bgit[ -]([a-z-]+)\b", text)
        if m.group(1) in _COMMAND_SWAPS and not re.search(rf"\bgit[ -]{_COMMAND_SWAPS[m.group(1)]}\b", text)
    ]
    if commands:
        m = rng.choice(commands)
        return text[: m.start(1)] + _COMMAND_SWAPS[m.group(1)] + text[m.end(1) :]
    spots = [m for m in re.finditer(r"(?<![\w'.-])[A-Z][A-Za-z]{2,}\b", text) if m.start() > 0 and m.group(0) in names]
    if not spots:
        return None
    m = rng.choice(spots)
    others = [n for n in names if n.lower() not in text.lower() and n.isupper() == m.group(0).isupper()]
    if not others:
        return None
    return text[: m.start()] + rng.choice(others) + text[m.end() :]
