"""The OpenAI Responses API: the tool list, a response's function calls, and the items that
answer them.

The TypedDicts mirror the openai SDK's parameter types key for key, so `tools(...)` and
`results(...)` go into `client.responses.create(...)` as they are; a key whose SDK type is a
union of the SDK's own types toolfx never builds is typed `Any`. Empty text parts are left out
(a result with no text at all is the empty string).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
    from toolfx.core.providers._results import Results
    from toolfx.core.providers._tools import ToolNote
    from toolfx.core.registry import Catalog, ToolSchema
    from toolfx.core.runtime import CancelSignal
    from toolfx.core.tools import ContentBlock

__all__ = [
    "ResponsesCallOutput",
    "ResponsesInputItem",
    "ResponsesMessage",
    "ResponsesTool",
    "calls",
    "notes",
    "results",
    "tools",
]

_Keywords = TypedDict("_Keywords", {"async": bool}, total=False)


class ResponsesTool(_Keywords, total=False):
    """A function tool (the SDK's `FunctionToolParam`)."""

    name: Required[str]
    parameters: Required[dict[str, object] | None]
    strict: Required[bool | None]
    type: Required[Literal["function"]]
    allowed_callers: list[Literal["direct", "programmatic"]] | None
    defer_loading: bool
    description: str | None
    output_schema: dict[str, object] | None


class ResponsesCallOutput(TypedDict, total=False):
    """The answer to one call (the SDK's `FunctionCallOutput` input item): `input_text` and
    `input_image` parts."""

    output: Required[str | list[Any]]
    type: Required[Literal["function_call_output"]]
    id: str | None
    call_id: str | None
    caller: Any
    name: str | None
    namespace: str | None
    status: Literal["in_progress", "completed", "incomplete"] | None


class ResponsesMessage(TypedDict, total=False):
    """A user message (the SDK's `EasyInputMessageParam`): the additional contexts."""

    content: Required[str | list[Any]]
    role: Required[Literal["user", "assistant", "system", "developer"]]
    phase: Any
    type: Literal["message"]


ResponsesInputItem = ResponsesCallOutput | ResponsesMessage
"""An input item `results` gives."""


@final
@dataclass(frozen=True, slots=True)
class _Exported:
    tools: tuple[ResponsesTool, ...]


@final
@dataclass(frozen=True, slots=True)
class _Noted:
    notes: tuple[ToolNote, ...]


def tools(catalog: Catalog) -> tuple[ResponsesTool, ...]:
    """The catalog's native tools as function tools, strict where the schema allows.

    Made once per catalog snapshot and shared by every later call: never change them in place;
    build changed copies instead (`[*tools[:-1], {**tools[-1], "defer_loading": True}]`).
    """
    return memoized(catalog, _Exported, _export).tools


def notes(catalog: Catalog) -> tuple[ToolNote, ...]:
    """Where `tools(catalog)` differs from the tools' schemas (each tool not strict, and why)."""
    return memoized(catalog, _Noted, _noted).notes


def calls(
    reply: ProviderReply, catalog: Catalog, signal: CancelSignal | None = None
) -> tuple[ToolCall, ...]:
    """The `function_call` items of a `Response` or of its `output` list, as dicts or SDK
    objects, sharing `signal` (a new one if None); strict-mode nulls undone; a repeated call id
    is a `ReplyError`."""
    root = Reply.of(reply)
    output = root if isinstance(root.value, Sequence) else root.at("output")
    return tool_calls(_requested(output), catalog, signal, ToolCall, strict_nulls=True)


def results(calls: Sequence[ToolCall], results: Results) -> list[ResponsesInputItem]:
    """A `function_call_output` per call, in order, then the additional contexts as a user
    message."""
    answers, contexts = paired(calls, results)
    items: list[ResponsesInputItem] = [
        {"type": "function_call_output", "call_id": a.call_id, "output": _parts(a.content) or ""}
        for a in answers
    ]
    content = [p for context in contexts for p in _parts(context.content)]
    if content:
        items.append({"type": "message", "role": "user", "content": content})
    return items


def _export(catalog: Catalog) -> _Exported:
    made = export_each(catalog.native_schemas(), _EXPORT)
    return _Exported(tuple(made))


def _noted(catalog: Catalog) -> _Noted:
    return _Noted(notes_of(catalog.native_schemas(), _EXPORT))


def _tool(schema: ToolSchema, parameters: tuple[dict[str, object], bool]) -> ResponsesTool:
    sent, strict = parameters
    return {
        "type": "function",
        "name": schema.name,
        "description": schema.description,
        "parameters": sent,
        "strict": strict,
    }


_EXPORT: Final = ToolExport(openai_function_parameters, _tool)


def _requested(output: Reply) -> Iterator[Requested]:
    for item in output.items():
        if item.kind() == "function_call":
            yield item.text("call_id"), item.text("name"), item.at("arguments").value, item


def _parts(content: Sequence[ContentBlock]) -> list[dict[str, object]]:
    """Image and text parts (no empty text)."""
    return [
        {"type": "input_image", "image_url": data_url(block), "detail": "auto"}
        if isinstance(block, ImageBlock)
        else {"type": "input_text", "text": text}
        for block in content
        if isinstance(block, ImageBlock) or (text := block_text(block))
    ]
