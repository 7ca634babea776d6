"""MCP tool results in toolfx: the canonical value, the model's content, and typed failures.

Every content block reaches the model as the server sent it: text, images, audio, embedded
resources (text or blob) and resource links become the toolfx block of the same kind, with
their annotations. A result with `isError` is a TOOL_ERROR failure carrying the server's text.
The value is the structured content when the server sends it; when the tool declares an
`outputSchema` it must be there and match it (checked with the full profile), or the call fails
with INVALID_TOOL_OUTPUT. Without structured content the value is the content as text (each
non-text block saying what it is). Either way the body gives the content with the value
(`WithContent`), so the model sees the blocks, not a rendering of the value.
"""

from __future__ import annotations

from typing import Final, assert_never

import mcp_types as types
from returns.result import Failure, Result, Success

from toolfx.core.json import FrozenJson, snapshot_json
from toolfx.core.jsonschema import CompiledSchema
from toolfx.core.tools import (
    AudioBlock,
    ContentBlock,
    ErrorCode,
    ImageBlock,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    TextBlock,
    ToolFailure,
    WithContent,
    content_text,
)

__all__ = ["CALL_ID_META", "ERROR_META", "McpOutcome", "block_of", "outcome_of"]

ERROR_META: Final = "toolfx/error"
"""The `_meta` key under which a toolfx server gives a failure's code (`toolfx mcp serve`)."""

CALL_ID_META: Final = "toolfx/callId"
"""The `_meta` key under which the client gives a toolfx server the model's call id."""

McpOutcome = Result[WithContent[FrozenJson], ToolFailure]
"""What one MCP call gives the pipeline: its value with the server's content, or a failure."""


def outcome_of(
    result: types.CallToolResult, output: CompiledSchema | None, name: str
) -> McpOutcome:
    """The value and content of a successful MCP result, or the failure it stands for."""
    content = tuple(block_of(block) for block in result.content)
    if result.is_error:
        message = content_text(content) or f"`{name}` reported an error without a message"
        return Failure(ToolFailure.of(_error_code(result.meta), message))
    structured = "structured_content" in result.model_fields_set
    if output is None:  # the pipeline checks the value is JSON
        value = result.structured_content if structured else content_text(content)
        return Success(WithContent(value, content))
    if not structured:
        return Failure(
            ToolFailure.of(
                ErrorCode.INVALID_TOOL_OUTPUT,
                f"`{name}` declares an output schema but returned no structured content",
            )
        )
    checked = output.validate(result.structured_content)
    if isinstance(checked, Failure):
        subject = f"`{name}` returned structured content that does not match its output schema"
        return Failure(
            ToolFailure.of(ErrorCode.INVALID_TOOL_OUTPUT, checked.failure().message(subject))
        )
    return Success(WithContent(checked.unwrap(), content))


def _error_code(meta: object) -> ErrorCode:
    """The code a toolfx server gave the failure (DENIED, TOOL_TIMEOUT, ...), else TOOL_ERROR."""
    error = meta.get(ERROR_META) if isinstance(meta, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    if isinstance(code, str) and code in ErrorCode.__members__:
        return ErrorCode(code)
    return ErrorCode.TOOL_ERROR


def block_of(block: types.ContentBlock) -> ContentBlock:
    """The toolfx block of one MCP content block: the same kind, fields and annotations."""
    if type(block) is types.TextContent and block.annotations is None:  # the common case
        return TextBlock(block.text)
    notes = _annotations(block.annotations)
    match block:
        case types.TextContent():
            return TextBlock(block.text, notes)
        case types.ImageContent():
            return ImageBlock(block.data, block.mime_type, notes)
        case types.AudioContent():
            return AudioBlock(block.data, block.mime_type, notes)
        case types.EmbeddedResource():
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                return ResourceTextBlock(resource.uri, resource.text, resource.mime_type, notes)
            return ResourceBlobBlock(resource.uri, resource.blob, resource.mime_type, notes)
        case types.ResourceLink():
            return ResourceLinkBlock(
                block.uri,
                block.name,
                block.title,
                block.description,
                block.mime_type,
                block.size,
                notes,
            )
        case _:
            assert_never(block)


def _annotations(annotations: types.Annotations | None) -> FrozenJson:
    if annotations is None:
        return None
    plain = annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
    return snapshot_json(plain).value_or(None)  # pydantic has checked it is JSON
