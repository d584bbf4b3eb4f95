"""Gemini through google-genai's streamGenerateContent (server-sent events)."""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from cardchat.providers import tools
from cardchat.providers.base import Failures, Prompt, SDKProvider, read_timeout_s
from cardchat.providers.tools import ToolCall
from cardchat.schema.messages import Usage

if TYPE_CHECKING:
    import httpx2
    from google import genai


#: Below this output budget a request is a short task (a title): Gemini 2.5
#: spends the output budget on thinking first and could return no text at all.
_SHORT_TASK = 1024
#: The least thinking a model accepts (2.5 Pro cannot turn it off).
_MIN_THINKING = {"gemini-2.5-pro": 128}


class GeminiProvider(SDKProvider):
    provider = "gemini"
    key_env = "GEMINI_API_KEY"

    def make_client(self, api_key: str, http_client: httpx2.Client | None) -> genai.Client:
        from google import genai
        from google.genai import types

        return genai.Client(
            vertexai=False,  # the Developer API with an API key, whatever the environment says
            api_key=api_key,
            http_options=types.HttpOptions(
                httpx_client=http_client,
                # one attempt: the engine owns retries
                retry_options=types.HttpRetryOptions(attempts=1),
                timeout=int(read_timeout_s() * 1000),  # milliseconds
            ),
        )

    def exchange(
        self,
        client: genai.Client,
        prompt: Prompt,
        fail: Failures,
    ) -> Generator[str | ToolCall, None, Usage | None]:
        from google.genai import errors, types

        contents = [
            types.Content(role="model" if m["role"] == "assistant" else "user", parts=[types.Part(text=m["content"])])
            for m in prompt.messages
        ] + _rounds(prompt)
        config = types.GenerateContentConfig(
            system_instruction=prompt.system or None, max_output_tokens=prompt.max_tokens, tools=_tools(prompt)
        )
        if prompt.max_tokens < _SHORT_TASK and prompt.spec.id.startswith("gemini-2.5"):
            floor = _MIN_THINKING.get(prompt.spec.id, 0)
            config.thinking_config = types.ThinkingConfig(thinking_budget=floor)
            config.max_output_tokens = prompt.max_tokens + floor
        usage = Usage()
        finished = False
        try:
            for chunk in client.models.generate_content_stream(model=prompt.spec.id, contents=contents, config=config):
                feedback = chunk.prompt_feedback
                if feedback is not None and feedback.block_reason:
                    raise fail.of("blocked", f"the prompt was blocked ({feedback.block_reason})")
                for candidate in chunk.candidates or []:
                    for part in (candidate.content.parts if candidate.content else None) or []:
                        if part.text and not part.thought:
                            yield part.text
                        if part.function_call is not None:
                            yield _call(part, len(prompt.rounds))
                    if candidate.finish_reason:
                        finished = True
                meta = chunk.usage_metadata
                if meta is not None:
                    usage = Usage(
                        meta.prompt_token_count or 0,
                        # thinking is billed as output
                        (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
                        cached_input_tokens=meta.cached_content_token_count or 0,
                    )
        except errors.APIError as e:
            raise fail.http(
                _int(e.code), e.status, _detail(e), getattr(e.response, "headers", None), _retry_delay(e.details)
            ) from None
        return usage if finished else None


def _tools(prompt: Prompt) -> list[Any] | None:
    from google.genai import types

    if not prompt.tools:
        return None
    declared = types.FunctionDeclaration(
        name=tools.NAME, description=tools.DESCRIPTION, parameters_json_schema=tools.PARAMETERS
    )
    return [types.Tool(function_declarations=[declared])]


def _call(part: Any, round_number: int) -> ToolCall:
    """A functionCall part as a ToolCall, keeping the part itself: it goes back as it came (a
    thinking model's thought signature with it). Gemini gives no id to every call: ours then."""
    call = part.function_call
    name = call.name or ""
    return ToolCall(call.id or f"{name}-{round_number}", name, tools.query_of(call.args or {}), raw=part)


def _rounds(prompt: Prompt) -> list[Any]:
    """The tool rounds so far as contents: the model's text and functionCall parts, then the
    user's functionResponse parts."""
    from google.genai import types

    contents = []
    for r in prompt.rounds:
        said = [types.Part(text=r.text)] if r.text.strip() else []
        contents.append(types.Content(role="model", parts=said + [c.raw for c in r.calls]))
        answers = [
            types.Part(
                function_response=types.FunctionResponse(
                    id=c.raw.function_call.id, name=c.name, response={"result": res}
                )
            )
            for c, res in zip(r.calls, r.results)
        ]
        contents.append(types.Content(role="user", parts=answers))
    return contents


def _int(code: Any) -> int | None:
    try:
        return int(code)
    except (TypeError, ValueError):
        return None


def _detail(e: Any) -> str:
    said = e.message or ""
    return f"{e.status}: {said}" if e.status else str(said)


def _retry_delay(details: Any) -> float | None:
    """google.rpc.RetryInfo's retryDelay ("17s"), Gemini's Retry-After."""
    error = details.get("error", details) if isinstance(details, dict) else {}
    for item in error.get("details", []) if isinstance(error, dict) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("RetryInfo"):
            m = re.fullmatch(r"(\d+(?:\.\d+)?)s", str(item.get("retryDelay", "")))
            if m:
                return float(m.group(1))
    return None
