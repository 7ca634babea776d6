"""OpenAI Chat Completions: the tool list, a reply's tool calls, and the messages that answer.

The TypedDicts mirror the openai SDK's parameter types key for key, so `tools(...)` and
`results(...)` go into `client.chat.completions.create(...)` as they are; a key whose SDK type
is a union of the SDK's own types toolfx never builds is typed `Any`.

A `tool` message takes text only, so the images of a result go into the user message that
follows the tool messages, after a text part naming the call they belong to; the additional
contexts come after them. Empty text parts are left out (a result with no text at all is the
empty string).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, Required, TypedDict, final

from toolfx.core.pipeline import ToolCall
from toolfx.core.providers._calls import tool_calls
from toolfx.core.providers._content import data_url
from toolfx.core.providers._openai_tools import openai_function_parameters
from toolfx.core.providers._reply import Reply
from toolfx.core.providers._results import paired
from toolfx.core.providers._tools import ToolExport, export_each, memoized, notes_of
from toolfx.core.tools import ImageBlock, block_text

if TYPE_CHECKING:
    from toolfx.core.providers._calls import Requested
    from toolfx.core.providers._reply import ProviderReply
    from toolfx.core.providers._results import Answer, Results
    from toolfx.core.providers._tools import ToolNote
    from toolfx.core.registry import Catalog, ToolSchema
    from toolfx.core.runtime import CancelSignal
    from toolfx.core.tools import ContentBlock

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
    """A user message (the SDK's `ChatCompletionUserMessageParam`): the results' images and
    additional contexts, as text and image parts."""

    role: Required[Literal["user"]]
    content: Required[str | Iterable[Any]]
    name: str


ChatMessage = ChatToolMessage | ChatUserMessage
"""A message `results` gives."""


@final
@dataclass(frozen=True, slots=True)
class _Exported:
    tools: tuple[ChatTool, ...]


@final
@dataclass(frozen=True, slots=True)
class _Noted:
    notes: tuple[ToolNote, ...]


def tools(catalog: Catalog) -> tuple[ChatTool, ...]:
    """The catalog's native tools as function tools, strict where the schema allows.

    Made once per catalog snapshot and shared by every later call: never change them in place;
    build changed copies instead (`{**tool, "function": {**tool["function"], ...}}`).
    """
    return memoized(catalog, _Exported, _export).tools


def notes(catalog: Catalog) -> tuple[ToolNote, ...]:
    """Where `tools(catalog)` differs from the tools' schemas (each tool not strict, and why)."""
    return memoized(catalog, _Noted, _noted).notes


def calls(
    reply: ProviderReply, catalog: Catalog, signal: CancelSignal | None = None
) -> tuple[ToolCall, ...]:
    """The tool calls of a `ChatCompletion` (its first choice; none without choices), of its
    message, or its message's `tool_calls` list, as dicts or SDK objects, sharing `signal` (a
    new one if None); strict-mode nulls undone; a repeated call id is a `ReplyError`."""
    root = Reply.of(reply)
    if isinstance(root.value, Sequence):
        listed = root
    elif root.has("choices"):
        choice = root.at("choices").first()
        if choice is None:
            return ()
        listed = choice.at("message").at("tool_calls")
    else:
        listed = root.at("tool_calls")
    return tool_calls(_requested(listed), catalog, signal, ToolCall, strict_nulls=True)


def results(calls: Sequence[ToolCall], results: Results) -> list[ChatMessage]:
    """A `tool` message per call, in order, then one user message with the results' images
    (each labelled with its call's id) and the additional contexts, when there are any."""
    answers, contexts = paired(calls, results)
    messages: list[ChatMessage] = [
        {"role": "tool", "tool_call_id": a.call_id, "content": _tool_content(a.content)}
        for a in answers
    ]
    shown = [
        *(part for answer in answers for part in _images(answer)),
        *(part for context in contexts for part in _parts(context.content)),
    ]
    if shown:
        messages.append({"role": "user", "content": shown})
    return messages


def _export(catalog: Catalog) -> _Exported:
    made = export_each(catalog.native_schemas(), _EXPORT)
    return _Exported(tuple(made))


def _noted(catalog: Catalog) -> _Noted:
    return _Noted(notes_of(catalog.native_schemas(), _EXPORT))


def _tool(schema: ToolSchema, parameters: tuple[dict[str, object], bool]) -> ChatTool:
    sent, strict = parameters
    function: ChatFunction = {
        "name": schema.name,
        "description": schema.description,
        "parameters": sent,
        "strict": strict,
    }
    return {"type": "function", "function": function}


_EXPORT: Final = ToolExport(openai_function_parameters, _tool)


def _requested(listed: Reply) -> Iterator[Requested]:
    for call in listed.items():
        if call.kind() not in {None, "function"}:
            continue  # a custom tool's call: not one of the catalog's functions
        function = call.at("function")
        yield call.text("id"), function.text("name"), function.at("arguments").value, call


def _tool_content(content: Sequence[ContentBlock]) -> str | list[ChatTextPart]:
    """A tool message's text parts (an image: a pointer to the user message after them)."""
    parts: list[ChatTextPart] = [
        {"type": "text", "text": _moved(block) if isinstance(block, ImageBlock) else text}
        for block in content
        if (text := block_text(block))
    ]
    return parts or ""


def _moved(block: ImageBlock) -> str:
    return f"[image ({block.media_type}): in the user message after the tool results]"


def _images(answer: Answer) -> Iterator[dict[str, object]]:
    """A result's images for the user message, after a label naming the call."""
    images = [block for block in answer.content if isinstance(block, ImageBlock)]
    if images:
        label = f"Images from the result of call {answer.call_id} (`{answer.name}`):"
        yield {"type": "text", "text": label}
        yield from _parts(images)


def _parts(content: Sequence[ContentBlock]) -> Iterator[dict[str, object]]:
    """Image and text parts for a user message (no empty text)."""
    for block in content:
        if isinstance(block, ImageBlock):
            yield {"type": "image_url", "image_url": {"url": data_url(block)}}
        elif text := block_text(block):
            yield {"type": "text", "text": text}
