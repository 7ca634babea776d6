"""MCP tool results in toolfx: the canonical value, the model's content, and typed failures.

A result with `isError` is a TOOL_ERROR failure carrying the server's text. Structured content is
the value; when the tool declares an `outputSchema` it must be there and match it (checked with
the full profile), or the call fails with INVALID_TOOL_OUTPUT. Otherwise the value is the text
of the content blocks, or, when an image is among them, the list of parts (`{"type": "text",
"text": ...}` and `{"type": "image", "data": ..., "media_type": ...}`), which `render_result`
turns back into text and image blocks, so the model's content always follows from the value.
Audio and resources become text that says what they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import mcp_types as types
from returns.result import Failure, Result, Success

from toolfx.core import (
    CompiledSchema,
    ContentBlock,
    ErrorCode,
    FrozenJson,
    ImageBlock,
    JsonValue,
    TextBlock,
    ToolFailure,
    render_json,
)

__all__ = ["outcome_of", "render_result"]


def outcome_of(
    result: types.CallToolResult, output: CompiledSchema | None, name: str
) -> Result[FrozenJson, ToolFailure]:
    """The value of a successful MCP result, or the failure it stands for."""
    if result.is_error:
        message = _text_of(result.content) or f"`{name}` reported an error without a message"
        return Failure(ToolFailure.of(ErrorCode.TOOL_ERROR, message))
    structured = "structured_content" in result.model_fields_set
    if output is None:
        return Success(result.structured_content if structured else _value_of(result.content))
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
    return Success(checked.unwrap())


def render_result(args: object, value: JsonValue) -> tuple[ContentBlock, ...]:
    """The model's content for an MCP tool's value: its text, its parts, or its JSON."""
    if isinstance(value, list):
        blocks = [_block_of_part(part) for part in value]
        if blocks and all(block is not None for block in blocks):
            return tuple(block for block in blocks if block is not None)
    return render_json(args, value)


def _text_of(content: Sequence[types.ContentBlock]) -> str:
    return "\n".join(_text_of_block(block) for block in content)


def _value_of(content: Sequence[types.ContentBlock]) -> JsonValue:
    if not any(isinstance(block, types.ImageContent) for block in content):
        return _text_of(content)
    return [
        {"type": "image", "data": block.data, "media_type": block.mime_type}
        if isinstance(block, types.ImageContent)
        else {"type": "text", "text": _text_of_block(block)}
        for block in content
    ]


def _block_of_part(part: JsonValue) -> ContentBlock | None:
    match part:
        case {"type": "text", "text": str(text), **rest} if not rest:
            return TextBlock(text)
        case {"type": "image", "data": str(data), "media_type": str(media_type), **rest} if (
            not rest
        ):
            return ImageBlock(data, media_type)
        case _:
            return None


def _text_of_block(block: types.ContentBlock) -> str:
    match block:
        case types.TextContent(text=text):
            return text
        case types.ImageContent(mime_type=mime_type, data=data):
            return f"[image ({mime_type}), {len(data)} base64 characters]"
        case types.AudioContent(mime_type=mime_type, data=data):
            return f"[audio ({mime_type}), {len(data)} base64 characters, not shown]"
        case types.ResourceLink(name=name, uri=uri, description=description):
            return f"[resource link: {name} <{uri}>]" + (f" {description}" if description else "")
        case types.EmbeddedResource(resource=types.TextResourceContents(uri=uri, text=text)):
            return f"[resource <{uri}>]\n{text}"
        case types.EmbeddedResource(resource=resource):
            kind = resource.mime_type or "binary"
            return f"[resource <{resource.uri}> ({kind}), not shown]"
