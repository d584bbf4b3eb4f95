"""Claude through the Messages API, streamed (server-sent events)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from cardchat.providers import tools
from cardchat.providers.base import Failures, Prompt, SDKProvider, client_options
from cardchat.providers.tools import ToolCall
from cardchat.schema.messages import Usage

if TYPE_CHECKING:
    import anthropic
    import httpx2


class AnthropicProvider(SDKProvider):
    provider = "anthropic"
    key_env = "ANTHROPIC_API_KEY"

    def make_client(self, api_key: str, http_client: httpx2.Client | None) -> anthropic.Anthropic:
        import anthropic

        return anthropic.Anthropic(**client_options(api_key, http_client))

    def exchange(
        self,
        client: anthropic.Anthropic,
        prompt: Prompt,
        fail: Failures,
    ) -> Generator[str | ToolCall, None, Usage | None]:
        import anthropic

        params: dict[str, Any] = {
            "model": prompt.spec.id,
            "max_tokens": prompt.max_tokens,
            "messages": [{"role": m["role"], "content": m["content"]} for m in prompt.messages] + _rounds(prompt),
        }
        if prompt.tools:
            params["tools"] = [{"name": tools.NAME, "description": tools.DESCRIPTION, "input_schema": tools.PARAMETERS}]
        if prompt.system:
            # The background is re-sent unchanged on every turn of a chat:
            # caching it makes follow-up turns cheaper and their first token faster.
            params["system"] = [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}]
        usage = Usage()
        finished = False
        calls: dict[int, tuple[str, str, list[str]]] = {}  # block index → id, name, the input's JSON so far
        try:
            for event in client.messages.create(stream=True, **params):
                if event.type == "message_start":
                    u = event.message.usage
                    # Cached input is billed and counted apart from input_tokens:
                    # the prompt's size is their sum.
                    usage.input_tokens = (
                        (u.input_tokens or 0)
                        + (getattr(u, "cache_creation_input_tokens", None) or 0)
                        + (getattr(u, "cache_read_input_tokens", None) or 0)
                    )
                    usage.output_tokens = u.output_tokens or 0
                    usage.cached_input_tokens = getattr(u, "cache_read_input_tokens", None) or 0
                    usage.cache_write_tokens = getattr(u, "cache_creation_input_tokens", None) or 0
                elif event.type == "content_block_start" and event.content_block.type == "tool_use":
                    calls[event.index] = (event.content_block.id, event.content_block.name, [])
                elif event.type == "content_block_delta":
                    if event.delta.type == "text_delta" and event.delta.text:
                        yield event.delta.text
                    elif event.delta.type == "input_json_delta" and event.index in calls:
                        calls[event.index][2].append(event.delta.partial_json)
                elif event.type == "content_block_stop" and event.index in calls:
                    call_id, name, json_parts = calls.pop(event.index)
                    yield ToolCall(call_id, name, tools.query_of("".join(json_parts)))
                elif event.type == "message_delta":
                    if event.usage.output_tokens is not None:
                        usage.output_tokens = event.usage.output_tokens
                elif event.type == "message_stop":
                    finished = True
        except anthropic.APIStatusError as e:
            raise fail.http(e.status_code, getattr(e, "type", None), _detail(e), e.response.headers) from None
        except anthropic.APITimeoutError as e:  # a subclass of APIConnectionError
            raise fail.of("timeout", type(e).__name__) from None
        except anthropic.APIConnectionError as e:
            raise fail.of("network", type(e).__name__) from None
        return usage if finished else None


def _rounds(prompt: Prompt) -> list[dict[str, Any]]:
    """The tool rounds so far as Messages API turns: the model's text and tool_use blocks,
    then the user's tool_result blocks."""
    turns: list[dict[str, Any]] = []
    for r in prompt.rounds:
        said = [{"type": "text", "text": r.text}] if r.text.strip() else []
        uses = [{"type": "tool_use", "id": c.id, "name": c.name, "input": {tools.ARGUMENT: c.query}} for c in r.calls]
        results = [{"type": "tool_result", "tool_use_id": c.id, "content": res} for c, res in zip(r.calls, r.results)]
        turns += [{"role": "assistant", "content": said + uses}, {"role": "user", "content": results}]
    return turns


def _detail(e: Any) -> str:
    """The provider's own short explanation, not the whole body."""
    said = getattr(e, "api_message", None)
    kind = getattr(e, "type", None)
    if said:
        return f"{kind}: {said}" if kind else str(said)
    return str(kind or "")
