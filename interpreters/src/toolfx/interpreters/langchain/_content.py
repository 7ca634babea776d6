"""A toolfx result as the content and artifact of a LangChain `ToolMessage`.

Text blocks (and every block with no LangChain standard kind, as its text fallback) become text;
images and audio become LangChain's standard `image` and `audio` blocks (base64 with their media
type), which the chat model integrations translate for their provider. Content that is all text
is one string, the form every integration takes. The artifact (kept beside the message, never
sent to the model) is the call's value, or its failure's code, message and details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from langchain_core.messages import ToolMessage
from langchain_core.messages.content import (
    AudioContentBlock,
    ImageContentBlock,
    TextContentBlock,
)

from toolfx.core import (
    AudioBlock,
    ImageBlock,
    JsonValue,
    ToolExecutionFailure,
    block_text,
    thaw_json,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolfx.core import ContentBlock, ToolExecutionResult

__all__ = ["MessageContent", "artifact", "message_content", "tool_message"]

_Block = TextContentBlock | ImageContentBlock | AudioContentBlock

MessageContent = str | list[_Block]
"""A message's content: one string, or standard content blocks."""


def tool_message(result: ToolExecutionResult, call_id: str, name: str) -> ToolMessage:
    """The `ToolMessage` answering call `call_id` of tool `name`; `status="error"` on a failure."""
    content = message_content(result.content)
    status: Literal["success", "error"] = (
        "error" if isinstance(result, ToolExecutionFailure) else "success"
    )
    fields = {"tool_call_id": call_id, "name": name, "status": status}
    if isinstance(content, str):
        return ToolMessage(content, artifact=artifact(result), **fields)
    return ToolMessage(content_blocks=list(content), artifact=artifact(result), **fields)


def message_content(content: Sequence[ContentBlock]) -> MessageContent:
    """The blocks as message content: one string when all are text, standard blocks otherwise."""
    blocks = [_block(block) for block in content]
    texts = [block["text"] for block in blocks if block["type"] == "text"]
    return "\n".join(texts) if len(texts) == len(blocks) else blocks


def artifact(result: ToolExecutionResult) -> JsonValue:
    """The result's value, or its failure's code, message and details, as plain JSON."""
    if isinstance(result, ToolExecutionFailure):
        error = result.error
        return {
            "code": error.code.value,
            "message": error.message,
            "details": thaw_json(error.info.details),
        }
    return thaw_json(result.value)


def _block(block: ContentBlock) -> _Block:
    if isinstance(block, ImageBlock):
        return ImageContentBlock(type="image", base64=block.data, mime_type=block.media_type)
    if isinstance(block, AudioBlock):
        return AudioContentBlock(type="audio", base64=block.data, mime_type=block.media_type)
    return TextContentBlock(type="text", text=block_text(block))
