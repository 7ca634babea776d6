"""A toolfx result as what an Agents SDK function tool returns to the model.

A success gives its text (one text block) or one output per block: text, images as data URLs,
every other block as its text. A failure gives one text: its code, then what the model is told.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents import ToolOutputImage, ToolOutputText

from toolfx.core.tools import ImageBlock, TextBlock, ToolExecutionFailure, block_text

if TYPE_CHECKING:
    from toolfx.core.tools import ContentBlock, ToolExecutionResult

__all__ = ["AgentsOutput", "agents_output"]

AgentsOutput = str | list[ToolOutputText | ToolOutputImage]
"""What a function tool hands the Agents SDK: one text, or one output per content block."""


def agents_output(result: ToolExecutionResult) -> AgentsOutput:
    """The model's view of `result`: a failure as `CODE: message`, a success as its content."""
    if isinstance(result, ToolExecutionFailure):
        told = "\n".join(block_text(block) for block in result.content)
        return f"{result.error.info.code.value}: {told}"
    if len(result.content) == 1 and isinstance(result.content[0], TextBlock):
        return result.content[0].text
    return [_output(block) for block in result.content]


def _output(block: ContentBlock) -> ToolOutputText | ToolOutputImage:
    if isinstance(block, ImageBlock):
        return ToolOutputImage(image_url=f"data:{block.media_type};base64,{block.data}")
    return ToolOutputText(text=block_text(block))
