"""A LangChain `ToolMessage`'s content as toolfx content blocks.

Text (a string, text parts, `text` blocks) stays text; standard `image` and `audio` blocks with
base64 data become image and audio blocks; every other part is kept as its JSON text, never
dropped.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from toolfx.core import AudioBlock, ImageBlock, TextBlock

if TYPE_CHECKING:
    from langchain_core.messages import ToolMessage

    from toolfx.core import ContentBlock

__all__ = ["content_blocks"]


def content_blocks(message: ToolMessage) -> tuple[ContentBlock, ...]:
    """The message's content as toolfx blocks, in order."""
    content = message.content
    if isinstance(content, str):
        return (TextBlock(content),)
    return tuple(_block(part) for part in content)


def _block(part: str | dict[object, object]) -> ContentBlock:
    if isinstance(part, str):
        return TextBlock(part)
    kind, data, media_type = part.get("type"), part.get("base64"), part.get("mime_type")
    text = part.get("text")
    if kind == "text" and isinstance(text, str):
        return TextBlock(text)
    if isinstance(data, str) and isinstance(media_type, str):
        if kind == "image":
            return ImageBlock(data, media_type)
        if kind == "audio":
            return AudioBlock(data, media_type)
    return TextBlock(json.dumps(part, default=repr, sort_keys=True))
