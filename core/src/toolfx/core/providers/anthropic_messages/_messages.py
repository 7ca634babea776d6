"""Anthropic Messages: the tool list, a message's `tool_use` blocks, and the user message that
answers them.

The TypedDicts mirror the anthropic SDK's parameter types key for key, so `tools(...)` and
`results(...)` go into `client.messages.create(...)` as they are; a key whose SDK type is a
union of the SDK's own types toolfx never builds is typed `Any`. Result blocks are as native as
Anthropic allows: text, images (base64), embedded text resources and PDFs as documents; every
other block as the text it stands for. Anthropic refuses empty text blocks, so none is sent: a
result with no content at all is a `tool_result` without `content`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, Required, TypedDict, final

from toolfx.core.json import thaw_json
from toolfx.core.jsonschema import SchemaProblem
from toolfx.core.pipeline import ToolCall
from toolfx.core.providers._calls import tool_calls
from toolfx.core.providers._reply import Reply
from toolfx.core.providers._results import paired
from toolfx.core.providers._tools import ToolExport, export_each, memoized, notes_of
from toolfx.core.tools import (
    ImageBlock,
    ResourceBlobBlock,
    ResourceTextBlock,
    TextBlock,
    block_text,
)

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson, JsonValue
    from toolfx.core.providers._calls import Requested
    from toolfx.core.providers._reply import ProviderReply
    from toolfx.core.providers._results import Answer, Results
    from toolfx.core.providers._tools import ToolNote
    from toolfx.core.registry import Catalog, ToolSchema
    from toolfx.core.runtime import CancelSignal
    from toolfx.core.tools import ContentBlock

__all__ = [
    "AnthropicCacheControl",
    "AnthropicTool",
    "AnthropicToolResult",
    "AnthropicUserMessage",
    "calls",
    "notes",
    "results",
    "tools",
]

_IMAGES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image media types Anthropic takes in a base64 source."""


class AnthropicCacheControl(TypedDict, total=False):
    """A cache breakpoint (the SDK's `CacheControlEphemeralParam`; toolfx sets none)."""

    type: Required[Literal["ephemeral"]]
    ttl: Literal["5m", "1h"]


class AnthropicTool(TypedDict, total=False):
    """A custom tool (the SDK's `ToolParam`); `input_schema` is the tool's JSON Schema."""

    input_schema: Required[Any]
    name: Required[str]
    allowed_callers: Any
    cache_control: AnthropicCacheControl | None
    defer_loading: bool
    description: str
    eager_input_streaming: bool | None
    input_examples: Iterable[dict[str, object]]
    strict: bool
    type: Literal["custom"] | None


class AnthropicToolResult(TypedDict, total=False):
    """The answer to one call (the SDK's `ToolResultBlockParam`)."""

    tool_use_id: Required[str]
    type: Required[Literal["tool_result"]]
    cache_control: AnthropicCacheControl | None
    content: str | Iterable[Any]
    is_error: bool
    toolset_name: str | None


class AnthropicUserMessage(TypedDict):
    """The user message that answers a turn's calls (the SDK's `MessageParam`): a `tool_result`
    block per call, then the additional contexts' blocks."""

    role: Literal["user"]
    content: str | Iterable[Any]


@final
@dataclass(frozen=True, slots=True)
class _Exported:
    tools: tuple[AnthropicTool, ...]


@final
@dataclass(frozen=True, slots=True)
class _Noted:
    notes: tuple[ToolNote, ...]


def tools(catalog: Catalog) -> tuple[AnthropicTool, ...]:
    """The catalog's native tools, each schema as it is less `$schema`.

    Made once per catalog snapshot and shared by every later call: never change them in place.
    To cache the tool list, mark a copy of the last tool:
    `[*tools[:-1], {**tools[-1], "cache_control": {"type": "ephemeral"}}]`.
    """
    return memoized(catalog, _Exported, _export).tools


def notes(catalog: Catalog) -> tuple[ToolNote, ...]:
    """Where `tools(catalog)` differs from the tools' schemas (a dropped `$schema`)."""
    return memoized(catalog, _Noted, _noted).notes


def calls(
    reply: ProviderReply, catalog: Catalog, signal: CancelSignal | None = None
) -> tuple[ToolCall, ...]:
    """The `tool_use` blocks of a `Message` or of its `content` list, as dicts or SDK objects,
    sharing `signal` (a new one if None); a repeated call id is a `ReplyError`."""
    root = Reply.of(reply)
    content = root if isinstance(root.value, Sequence) else root.at("content")
    return tool_calls(_requested(content), catalog, signal, ToolCall, strict_nulls=False)


def results(calls: Sequence[ToolCall], results: Results) -> AnthropicUserMessage:
    """One user message: a `tool_result` per call, in order (`is_error` on failures), then the
    additional contexts' blocks."""
    answers, contexts = paired(calls, results)
    answered = [_result(a) for a in answers]
    after = [_block(block) for context in contexts for block in context.content if _sent(block)]
    return {"role": "user", "content": [*answered, *after]}


def _export(catalog: Catalog) -> _Exported:
    made = export_each(catalog.native_schemas(), _EXPORT)
    return _Exported(tuple(made))


def _noted(catalog: Catalog) -> _Noted:
    return _Noted(notes_of(catalog.native_schemas(), _EXPORT))


def _input_schema(parameters: FrozenJson) -> tuple[JsonValue, list[SchemaProblem]]:
    input_schema = thaw_json(parameters)
    problems = []
    if isinstance(input_schema, dict) and "$schema" in input_schema:
        del input_schema["$schema"]
        problems.append(SchemaProblem("/$schema", "Anthropic takes no $schema: dropped"))
    return input_schema, problems


def _tool(schema: ToolSchema, input_schema: JsonValue) -> AnthropicTool:
    return {"name": schema.name, "description": schema.description, "input_schema": input_schema}


_EXPORT: Final = ToolExport(_input_schema, _tool)


def _requested(content: Reply) -> Iterator[Requested]:
    for block in content.items():
        if block.kind() == "tool_use":
            yield block.text("id"), block.text("name"), block.at("input").value, block


def _result(answer: Answer) -> AnthropicToolResult:
    result: AnthropicToolResult = {
        "type": "tool_result",
        "tool_use_id": answer.call_id,
        "is_error": answer.is_error,
    }
    content = [_block(block) for block in answer.content if _sent(block)]
    if content:
        result["content"] = content
    return result


def _sent(block: ContentBlock) -> bool:
    """Whether a block is sent at all (an empty text block is refused)."""
    return not isinstance(block, TextBlock) or bool(block.text)


def _block(block: ContentBlock) -> dict[str, object]:
    """A content block as Anthropic's: native where it has the kind, text otherwise."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock) and block.media_type in _IMAGES:
        source = {"type": "base64", "media_type": block.media_type, "data": block.data}
        return {"type": "image", "source": source}
    if isinstance(block, ResourceTextBlock):
        source = {"type": "text", "media_type": "text/plain", "data": block.text}
        return {"type": "document", "source": source, "title": block.uri}
    if isinstance(block, ResourceBlobBlock) and block.media_type == "application/pdf":
        source = {"type": "base64", "media_type": "application/pdf", "data": block.blob}
        return {"type": "document", "source": source, "title": block.uri}
    return {"type": "text", "text": block_text(block)}
