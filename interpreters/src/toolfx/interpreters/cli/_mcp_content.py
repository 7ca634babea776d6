"""toolfx content blocks as MCP content blocks, each kind as its MCP kind, annotations kept.

Annotations that are not MCP annotations (they came from elsewhere than an MCP server) are left
out, with a warning on the `toolfx.mcp` logger.
"""

from __future__ import annotations

import logging
from typing import assert_never

import mcp_types as types
from pydantic import ValidationError

from toolfx.core.json import FrozenJson, thaw_json
from toolfx.core.tools import (
    AudioBlock,
    ContentBlock,
    ImageBlock,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    TextBlock,
)

__all__ = ["mcp_block"]

_log = logging.getLogger("toolfx.mcp")


def mcp_block(block: ContentBlock) -> types.ContentBlock:
    """The MCP content block for one toolfx block."""
    if type(block) is TextBlock and block.annotations is None:  # the common case, kept cheap
        return types.TextContent(text=block.text)
    notes = _annotations(block.annotations)
    match block:
        case TextBlock():
            return types.TextContent(text=block.text, annotations=notes)
        case ImageBlock():
            return types.ImageContent(
                data=block.data, mime_type=block.media_type, annotations=notes
            )
        case AudioBlock():
            return types.AudioContent(
                data=block.data, mime_type=block.media_type, annotations=notes
            )
        case ResourceTextBlock():
            text = types.TextResourceContents(
                uri=block.uri, text=block.text, mime_type=block.media_type
            )
            return types.EmbeddedResource(resource=text, annotations=notes)
        case ResourceBlobBlock():
            blob = types.BlobResourceContents(
                uri=block.uri, blob=block.blob, mime_type=block.media_type
            )
            return types.EmbeddedResource(resource=blob, annotations=notes)
        case ResourceLinkBlock():
            return types.ResourceLink(
                uri=block.uri,
                name=block.name,
                title=block.title,
                description=block.description,
                mime_type=block.media_type,
                size=block.size,
                annotations=notes,
            )
        case _:
            assert_never(block)


def _annotations(annotations: FrozenJson) -> types.Annotations | None:
    if annotations is None:
        return None
    try:
        return types.Annotations.model_validate(thaw_json(annotations))
    except ValidationError as error:
        _log.warning("content annotations left out, they are not MCP annotations: %s", error)
        return None
