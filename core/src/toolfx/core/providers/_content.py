"""Content blocks as the parts the providers take: data URLs, raw bytes for Gemini's inline
data, and the text every other block stands for (`toolfx.core.tools.block_text`)."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING

from toolfx.core.tools import AudioBlock, ImageBlock, ResourceBlobBlock

if TYPE_CHECKING:
    from toolfx.core.tools import ContentBlock

__all__ = ["data_url", "inline_bytes"]


def data_url(block: ImageBlock) -> str:
    """An image as a `data:` URL (what OpenAI takes for an inline image)."""
    return f"data:{block.media_type};base64,{block.data}"


def inline_bytes(block: ContentBlock) -> tuple[str, bytes] | None:
    """A media block's type and decoded bytes (Gemini's inline data), or None for the rest."""
    if isinstance(block, ImageBlock | AudioBlock):
        media_type, data = block.media_type, block.data
    elif isinstance(block, ResourceBlobBlock):
        media_type, data = block.media_type or "application/octet-stream", block.blob
    else:
        return None
    try:
        return media_type, base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):  # not base64 after all: the block goes as its text
        return None
