"""Other people's text as the model reads it: nothing in it can open or close
a tag of the hidden background (retrieval/background.py), whatever form the
`<` takes, and nothing in it is invisible to the person who reads the card.

A model does not parse: it reads `&lt;/card&gt;`, `＜/card>` or `<` with a
zero-width space after it much as it reads `</card>`. So in a foreign card
every character that is or imitates a `<` becomes `‹` (U+2039), not only
those that would open a known tag, and:

- format characters (Unicode category Cf: zero-width spaces and joiners,
  bidi controls, the invisible tag characters that can spell out a hidden
  instruction) and control characters other than a line break or a tab are
  dropped: the card's reader never saw them, so the model should not either;
- character references (`&lt;`, `&#60;`, `&#x3c;`, `&amp;lt;` ...) are
  decoded, a few rounds deep, before the `<`s are replaced, so an encoded `<`
  ends as `‹` like a plain one. A text with references still left after
  those rounds (nested deeper than any real text nests them) loses its `&`s,
  so no later decoding can make a `<` of it.

What imitates a `<` is read from the Unicode database, not a hand list: a
character whose compatibility form (NFKC) holds a `<` (`＜`, `﹤`), an
opening angle bracket (`〈`, `⟨`, `〈`, `❬`...) and the left arrowheads
(`˂`). Each distinct character is classified once per process.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

#: What every `<` (or look-alike) of a foreign text becomes.
ESCAPED_OPENER = "\u2039"
#: Rounds of character-reference decoding: `&amp;lt;` takes two.
_DECODE_ROUNDS = 4
#: What a display name keeps besides: no quote, angle bracket, ampersand or backslash.
_NAME_DROP = re.compile(r'["<>&\\]')
_NAME_CHARS = 60
_KEPT_CONTROLS = "\n\t"


@lru_cache(maxsize=4096)
def _as_read(ch: str) -> str:
    """What a character of someone else's text becomes: "" if invisible, `‹` if it is or imitates `<`."""
    category = unicodedata.category(ch)
    if category == "Cf" or (category == "Cc" and ch not in _KEPT_CONTROLS):
        return ""
    if ch == ESCAPED_OPENER or category[0] not in "SP":
        return ch
    name = unicodedata.name(ch, "")
    opener = (
        "<" in unicodedata.normalize("NFKC", ch)
        or (category == "Ps" and "ANGLE BRACKET" in name)
        or name.endswith("LEFT ARROWHEAD")
    )
    return ESCAPED_OPENER if opener else ch


def _suspects(text: str) -> set[str]:
    """The distinct characters of `text` that _as_read may change: all but printable ASCII, a `<` included."""
    return {ch for ch in set(text) if ch > "~" or ch < " " or ch == "<"}


def _translated(text: str) -> str:
    """`text` with each character as _as_read has it: a pass per distinct character
    changed, which str.replace makes far cheaper than str.translate's per-character one."""
    for ch in _suspects(text):
        if (shown := _as_read(ch)) != ch:
            text = text.replace(ch, shown)
    return text


def plain(text: str) -> str:
    """Someone else's text as a background holds it: no `<` in any form, nothing invisible."""
    for _ in range(_DECODE_ROUNDS):
        text = _translated(text)
        decoded = html.unescape(text) if "&" in text else text
        if decoded == text:
            return text
        text = decoded
    return _translated(text).replace("&", "")


def visible(text: str) -> str:
    """Someone else's text without the characters its reader never saw (format and control characters)."""
    for ch in _suspects(text):
        if _as_read(ch) == "":
            text = text.replace(ch, "")
    return text


def display_name(name: str) -> str:
    """A display name as an author attribute holds it: plain, on one line, no quote, at most 60 characters."""
    kept = _NAME_DROP.sub(" ", plain(name)).replace(ESCAPED_OPENER, " ")
    return " ".join(kept.split())[:_NAME_CHARS].strip()
