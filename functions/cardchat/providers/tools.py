"""The one tool a model may be offered while it answers: `search_cards`, which searches the
chat's own cards (generation/look_further.py) and hands back new ones numbered to cite.

Each SDK provider says it in its vendor's wire format (a tool declaration, the model's calls
as they stream, the calls and their results sent back); what is the same for all of them
lives here and in `base.SDKProvider.stream`: the calls of one round are run, their results
sent back in the next, for at most MAX_ROUNDS rounds. Calls and results stay in the
exchange with the provider: neither is ever yielded as answer text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

#: The tool's name and its one argument, as models see them (a contract: checked outside the repo).
NAME = "search_cards"
ARGUMENT = "query"
DESCRIPTION = (
    "Search the user's cards for ones the background does not hold yet. Use it only when the "
    "cards you were given do not answer the question. It returns new cards, numbered to be cited "
    "as [n] like the others, or says that none matched. Never mention the search in your answer."
)
#: JSON Schema of the argument object.
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {ARGUMENT: {"type": "string", "description": "what to look for, in a few words"}},
    "required": [ARGUMENT],
}
#: Rounds of tool calls one answer may go through: the search itself answers a call beyond
#: its own limit with a result saying so, and a model that keeps calling after that is not
#: called again (what it said is the answer).
MAX_ROUNDS = 5
#: Text of a round that offers the tool is held back until it cites a card, or reaches this
#: many characters, or the round ends: a model that is about to call says so first ("Let me
#: search for ..."), and that sentence names the query, which no reader may see; an answer
#: cites its cards from its first sentences, so its text is released at its first citation.
HELD_CHARS = 300
#: A citation as answers write them: the mark that releases held text.
CITATION = re.compile(r"\[\d+\]")
#: The result of a call to a tool of another name.
UNKNOWN_TOOL = f"There is no such tool: the only one is {NAME}."


class Search(Protocol):
    """What runs a model's call: its query in, the result the model reads out."""

    def __call__(self, query: str) -> str: ...


@dataclass(frozen=True)
class ToolCall:
    """One call as the model made it: its id (the vendor's, to pair the result with it), the
    tool's name, the query, and the vendor's own record of it where it must go back unchanged."""

    id: str
    name: str
    query: str
    raw: Any = None


@dataclass(frozen=True)
class ToolRound:
    """A round the model ended with tool calls: what it said first, its calls, their results."""

    text: str
    calls: tuple[ToolCall, ...]
    results: tuple[str, ...]


def query_of(arguments: str | dict[str, Any] | None) -> str:
    """The query of a call's arguments (a JSON text as streamed, or an object); "" when unreadable."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return ""
    value = arguments.get(ARGUMENT) if isinstance(arguments, dict) else None
    return value.strip() if isinstance(value, str) else ""


def run(search: Search, call: ToolCall) -> str:
    return search(call.query) if call.name == NAME else UNKNOWN_TOOL
