"""A toolfx result as what a pydantic-ai tool gives back: its content, or a `ToolFailed`.

Text blocks (and the text fallback of every block pydantic-ai has no native form for) stay
text; images and audio become `BinaryContent`, which pydantic-ai sends natively where the model
takes it. Context messages the tool deferred go in `ToolReturn.content`, after the result. A
failure is raised as `ToolFailed` with its code and message: the model sees a failed tool
result and the run goes on (no retry budget is spent).
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from typing import TYPE_CHECKING

from pydantic_ai import BinaryContent, ToolFailed, ToolReturn

from toolfx.core import AudioBlock, ImageBlock, ToolExecutionFailure, block_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolfx.core import ContentBlock, ToolExecutionResult

__all__ = ["ModelContent", "tool_return"]

ModelContent = str | list[str | BinaryContent]
"""A tool result's content as pydantic-ai takes it: text, or text and media parts."""


def tool_return(result: ToolExecutionResult) -> ModelContent | ToolReturn[ModelContent]:
    """The result's content for the model; a failure raises `ToolFailed`."""
    if isinstance(result, ToolExecutionFailure):
        raise ToolFailed(f"{result.error.code.value}: {result.error.message}")
    content = _model_content(result.content)
    if not result.additional_contexts:
        return content
    after = [part for context in result.additional_contexts for part in _parts(context.content)]
    return ToolReturn(content, content=after)


def _model_content(content: Sequence[ContentBlock]) -> ModelContent:
    parts = _parts(content)
    if all(isinstance(part, str) for part in parts):
        return "\n".join(part for part in parts if isinstance(part, str))
    return parts


def _parts(content: Sequence[ContentBlock]) -> list[str | BinaryContent]:
    return [_part(block) for block in content]


def _part(block: ContentBlock) -> str | BinaryContent:
    if isinstance(block, ImageBlock | AudioBlock):
        try:
            return BinaryContent(b64decode(block.data, validate=True), media_type=block.media_type)
        except binascii.Error:  # not base64 after all: what the model can read of it
            return block_text(block)
    return block_text(block)
