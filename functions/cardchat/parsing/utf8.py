"""Well-formed Unicode for everything stored or logged.

Python strings may hold lone UTF-16 surrogates (a JSON `\\ud83d` without its
pair decodes to one), and Firestore refuses a write holding one: an answer
whose text or failure carries one could never be written and would hang as
"streaming" until its lease ran out. A pair split across two pieces is joined
back into its character; a lone surrogate becomes U+FFFD.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """`text` with surrogate pairs joined and lone surrogates replaced."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def well_formed_fields(value: Any) -> Any:
    """`value` with every string in it (keys too, through dicts, lists and
    tuples) made well-formed; other values unchanged."""
    if isinstance(value, str):
        return well_formed(value)
    if isinstance(value, dict):
        return {well_formed(k) if isinstance(k, str) else k: well_formed_fields(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [well_formed_fields(v) for v in value]
    return value
