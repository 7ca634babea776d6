"""OpenAI Chat Completions: the tool list, a reply's tool calls, and the messages that answer.

The TypedDicts mirror the openai SDK's parameter types key for key, so `tools(...)` and
`results(...)` go into `client.chat.completions.create(...)` as they are; a key whose SDK type
is a union of the SDK's own types toolfx never builds is typed `Any`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Required, TypedDict, final

from toolfx.core.pipeline import ToolCall
from toolfx.core.providers._calls import tool_calls
from toolfx.core.providers._content import data_url
from toolfx.core.providers._openai_tools import openai_parameters
from toolfx.core.providers._reply import Reply
from toolfx.core.providers._results import paired
from toolfx.core.providers._tools import export_each, memoized
from toolfx.core.tools import ImageBlock, block_text

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.jsonschema import SchemaProblem
    from toolfx.core.providers._reply import ProviderReply
    from toolfx.core.providers._results import Results
    from toolfx.core.providers._tools import ToolNote
    from toolfx.core.registry import Catalog, ToolSchema
    from toolfx.core.runtime import CancelSignal
    from toolfx.core.tools import ContentBlock, ContextMessage

__all__ = [
    "CacheBreakpoint",
    "ChatFunction",
    "ChatMessage",
    "ChatTextPart",
    "ChatTool",
    "ChatToolMessage",
    "ChatUserMessage",
    "calls",
    "notes",
    "results",
    "tools",
]


class ChatFunction(TypedDict, total=False):
    """A function tool's definition (the SDK's `FunctionDefinition`)."""

    name: Required[str]
    description: str
    parameters: dict[str, object]
    strict: bool | None


class ChatTool(TypedDict):
    """A function tool (the SDK's `ChatCompletionFunctionToolParam`)."""

    type: Literal["function"]
    function: ChatFunction


class CacheBreakpoint(TypedDict, total=False):
    """A prompt cache breakpoint (the SDK's `PromptCacheBreakpoint`; toolfx sets none)."""

    mode: Required[Literal["explicit"]]
    ttl: Literal["30m", "12h"]


class ChatTextPart(TypedDict, total=False):
    """A text part (the SDK's `ChatCompletionContentPartTextParam`)."""

    text: Required[str]
    type: Required[Literal["text"]]
    prompt_cache_breakpoint: CacheBreakpoint


class ChatToolMessage(TypedDict):
    """The answer to one call (the SDK's `ChatCompletionToolMessageParam`)."""

    role: Literal["tool"]
    tool_call_id: str
    content: str | Iterable[ChatTextPart]


class ChatUserMessage(TypedDict, total=False):
    """A user message (the SDK's `ChatCompletionUserMessageParam`): the results' additional
    contexts, as text and image parts."""

    role: Required[Literal["user"]]
    content: Required[str | Iterable[Any]]
    name: str


ChatMessage = ChatToolMessage | ChatUserMessage
"""A message `results` gives."""


@final
@dataclass(frozen=True, slots=True)
class _Exported:
    tools: tuple[ChatTool, ...]
    notes: tuple[ToolNote, ...]


def tools(catalog: Catalog) -> tuple[ChatTool, ...]:
    """The catalog's native tools as function tools, strict where the schema allows (made once
    per catalog snapshot and shared: do not change them)."""
    return memoized(catalog, _Exported, _export).tools


def notes(catalog: Catalog) -> tuple[ToolNote, ...]:
    """Where `tools(catalog)` differs from the tools' schemas (each tool not strict, and why)."""
    return memoized(catalog, _Exported, _export).notes


def calls(
    reply: ProviderReply, catalog: Catalog, signal: CancelSignal | None = None
) -> tuple[ToolCall, ...]:
    """The tool calls of a `ChatCompletion` (its first choice) or of its message, as dict or
    SDK object, sharing `signal` (a new one if None); strict-mode nulls undone."""
    root = Reply.of(reply)
    message = root.at("choices").first().at("message") if root.has("choices") else root
    return tool_calls(_requested(message), catalog, signal, ToolCall, strict_nulls=True)


def results(calls: Sequence[ToolCall], results: Results) -> list[ChatMessage]:
    """A `tool` message per call, in order, then the additional contexts as one user message."""
    answers, contexts = paired(calls, results)
    messages: list[ChatMessage] = [
        {"role": "tool", "tool_call_id": a.call_id, "content": _text_parts(a.content)}
        for a in answers
    ]
    if contexts:
        messages.append({"role": "user", "content": list(_context_parts(contexts))})
    return messages


def _export(catalog: Catalog) -> _Exported:
    made, found = export_each(catalog.native_schemas(), _tool)
    return _Exported(tuple(made), found)


def _tool(schema: ToolSchema, parameters: FrozenJson) -> tuple[ChatTool, list[SchemaProblem]]:
    sent, strict, problems = openai_parameters(parameters)
    function: ChatFunction = {
        "name": schema.name,
        "description": schema.description,
        "parameters": sent,
        "strict": strict,
    }
    return {"type": "function", "function": function}, problems


def _requested(message: Reply) -> Iterator[tuple[str, str, object]]:
    for call in message.at("tool_calls").items():
        if call.kind() not in {None, "function"}:
            continue  # a custom tool's call: not one of the catalog's functions
        function = call.at("function")
        yield call.text("id"), function.text("name"), function.at("arguments").value


def _text_parts(content: Sequence[ContentBlock]) -> list[ChatTextPart]:
    return [{"type": "text", "text": block_text(block)} for block in content]


def _context_parts(contexts: Sequence[ContextMessage]) -> Iterator[dict[str, object]]:
    for context in contexts:
        for block in context.content:
            if isinstance(block, ImageBlock):
                yield {"type": "image_url", "image_url": {"url": data_url(block)}}
            else:
                yield {"type": "text", "text": block_text(block)}
