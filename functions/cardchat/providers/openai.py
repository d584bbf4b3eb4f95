"""GPT models through Chat Completions, streamed.

Chat Completions rather than the Responses API: the app keeps its own history
and needs nothing stateful on OpenAI's side, and the chunk stream with
`include_usage` gives exactly deltas then one usage record.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from cardchat.providers import tools
from cardchat.providers.base import Failures, Prompt, SDKProvider, client_options
from cardchat.providers.tools import ToolCall
from cardchat.schema.messages import Usage

if TYPE_CHECKING:
    from collections.abc import Iterable

    import httpx2
    import openai
    from openai.types.chat import ChatCompletionChunk


class OpenAIProvider(SDKProvider):
    provider = "openai"
    key_env = "OPENAI_API_KEY"

    def make_client(self, api_key: str, http_client: httpx2.Client | None) -> openai.OpenAI:
        import openai

        return openai.OpenAI(**client_options(api_key, http_client))

    def model_name(self, prompt: Prompt) -> str:
        return prompt.spec.id

    def request_options(self, prompt: Prompt) -> dict[str, Any]:
        return {"max_completion_tokens": prompt.max_tokens, "stream_options": {"include_usage": True}}

    def exchange(
        self,
        client: openai.OpenAI,
        prompt: Prompt,
        fail: Failures,
    ) -> Generator[str | ToolCall, None, Usage | None]:
        import openai

        wire: list[dict[str, Any]] = [{"role": "system", "content": prompt.system}] if prompt.system else []
        wire += [{"role": m["role"], "content": m["content"]} for m in prompt.messages] + _rounds(prompt)
        options = self.request_options(prompt)
        if prompt.tools:
            function = {"name": tools.NAME, "description": tools.DESCRIPTION, "parameters": tools.PARAMETERS}
            options["tools"] = [{"type": "function", "function": function}]
        usage: Usage | None = None
        finished = False
        calls: dict[int, list[str]] = {}  # the call's index → id, name, its arguments' JSON so far
        try:
            # untyped: wire holds plain dicts, and the options differ by provider (request_options)
            create: Any = client.chat.completions.create
            chunks: Iterable[ChatCompletionChunk] = create(
                model=self.model_name(prompt), messages=wire, stream=True, **options
            )
            for chunk in chunks:
                for choice in chunk.choices:
                    if choice.delta and choice.delta.content:
                        yield choice.delta.content
                    for part in (choice.delta.tool_calls if choice.delta else None) or []:
                        _gather(calls.setdefault(part.index, ["", "", ""]), part)
                    if choice.finish_reason:
                        finished = True
                        yield from (ToolCall(i, n, tools.query_of(a)) for i, n, a in calls.values())
                        calls.clear()
                if chunk.usage is not None:
                    details = chunk.usage.prompt_tokens_details
                    usage = Usage(
                        chunk.usage.prompt_tokens or 0,
                        chunk.usage.completion_tokens or 0,
                        cached_input_tokens=(details.cached_tokens or 0) if details else 0,
                    )
        except openai.APIStatusError as e:
            raise fail.http(e.status_code, _code(e), _detail(e), e.response.headers) from None
        except openai.APITimeoutError as e:  # a subclass of APIConnectionError
            raise fail.of("timeout", type(e).__name__) from None
        except openai.APIConnectionError as e:
            raise fail.of("network", type(e).__name__) from None
        except openai.APIError as e:  # an error object inside a 200 stream
            raise fail.http(None, _code(e), _detail(e)) from None
        return (usage or Usage()) if finished else None


def _gather(call: list[str], part: Any) -> None:
    """A streamed piece of a tool call into `call` (id, name, arguments): the id and name come
    once, in its first piece; the arguments' JSON in pieces."""
    call[0] = part.id or call[0]
    function = part.function
    if function is not None:
        call[1] = function.name or call[1]
        call[2] += function.arguments or ""


def _rounds(prompt: Prompt) -> list[dict[str, Any]]:
    """The tool rounds so far as Chat Completions messages: the assistant's tool_calls, then
    one `tool` message per call with its result."""
    wire: list[dict[str, Any]] = []
    for r in prompt.rounds:
        called = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps({tools.ARGUMENT: c.query})},
            }
            for c in r.calls
        ]
        wire.append({"role": "assistant", "content": r.text or None, "tool_calls": called})
        wire += [{"role": "tool", "tool_call_id": c.id, "content": res} for c, res in zip(r.calls, r.results)]
    return wire


def _code(e: Any) -> str | None:
    return getattr(e, "code", None) or getattr(e, "type", None)


def _detail(e: Any) -> str:
    body = getattr(e, "body", None)
    said = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        said = inner.get("message") if isinstance(inner, dict) else None
    said = said or getattr(e, "message", "") or ""
    code = _code(e)
    return f"{code}: {said}" if code else str(said)
