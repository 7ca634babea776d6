"""Tool results in the shapes OpenAI, Anthropic and Gemini take, each block as natively as the
provider allows and otherwise as text that says what it is (see `toolfx.core.tools.content_text`),
never dropped.

- `openai_result_content`: the parts of a Chat Completions `tool` message, which carry text
  only: every other block is its text fallback.
- `anthropic_result_content`: the `content` of a Messages API `tool_result` block: text, images
  (base64 source), embedded text resources and PDF blobs as `document` blocks; audio, other
  blobs and resource links as text.
- `gemini_function_response`: a `functionResponse` part's fields: the text of every block under
  `response.output`, and images, audio and blobs as `inlineData` parts (multimodal function
  responses) beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from toolfx.core.json import JsonValue
from toolfx.core.tools import (
    AudioBlock,
    ImageBlock,
    ResourceBlobBlock,
    ResourceTextBlock,
    TextBlock,
    block_text,
)

if TYPE_CHECKING:
    from toolfx.core.tools import (
        ContentBlock,
    )

__all__ = ["anthropic_result_content", "gemini_function_response", "openai_result_content"]

_ANTHROPIC_IMAGES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image media types Anthropic takes in a base64 source."""

_Part = dict[str, JsonValue]


def openai_result_content(content: Sequence[ContentBlock]) -> list[_Part]:
    """Chat Completions tool-message parts: one text part per block."""
    return [{"type": "text", "text": block_text(block)} for block in content]


def anthropic_result_content(content: Sequence[ContentBlock]) -> list[_Part]:
    """A `tool_result`'s content blocks: native where Anthropic has the kind, text otherwise."""
    return [_anthropic_block(block) for block in content]


def gemini_function_response(name: str, content: Sequence[ContentBlock]) -> _Part:
    """A `functionResponse`: the blocks' text as `response.output`, media as `inlineData` parts."""
    texts = [block_text(block) for block in content]
    parts: list[JsonValue] = [
        {"inlineData": {"mimeType": media_type, "data": data}}
        for media_type, data in (_inline(block) for block in content)
        if data is not None
    ]
    response: _Part = {"name": name, "response": {"output": "\n".join(texts)}}
    if parts:
        response["parts"] = parts
    return response


def _anthropic_block(block: ContentBlock) -> _Part:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock) and block.media_type in _ANTHROPIC_IMAGES:
        source: _Part = {"type": "base64", "media_type": block.media_type, "data": block.data}
        return {"type": "image", "source": source}
    if isinstance(block, ResourceTextBlock):
        source = {"type": "text", "media_type": "text/plain", "data": block.text}
        return {"type": "document", "source": source, "title": block.uri}
    if isinstance(block, ResourceBlobBlock) and block.media_type == "application/pdf":
        source = {"type": "base64", "media_type": "application/pdf", "data": block.blob}
        return {"type": "document", "source": source, "title": block.uri}
    return {"type": "text", "text": block_text(block)}


def _inline(block: ContentBlock) -> tuple[str, str | None]:
    if isinstance(block, ImageBlock | AudioBlock):
        return block.media_type, block.data
    if isinstance(block, ResourceBlobBlock):
        return block.media_type or "application/octet-stream", block.blob
    return "", None
