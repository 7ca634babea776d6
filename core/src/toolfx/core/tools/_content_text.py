"""Content as text, for a reader that takes only text: each block says what it is.

Text is itself; an embedded text resource is its URI line and its text; an image, audio or a
binary resource is a bracketed line with its kind, media type and size (its bytes are not text);
a resource link is its name, URI and what the server said of it. Annotations are not shown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final, assert_never

from toolfx.core.tools._content import (
    AudioBlock,
    ContentBlock,
    ImageBlock,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    TextBlock,
    TextBlockDraft,
)

__all__ = [
    "block_text",
    "content_text",
    "render_json",
]


def block_text(block: ContentBlock) -> str:
    """One block as text that says what it is."""
    match block:
        case TextBlock():
            return block.text
        case ImageBlock() | AudioBlock():
            kind = "image" if isinstance(block, ImageBlock) else "audio"
            return f"[{kind} ({block.media_type}), {_size(block.data)}, not shown as text]"
        case ResourceTextBlock():
            return f"[resource <{block.uri}>{_media(block.media_type)}]\n{block.text}"
        case ResourceBlobBlock():
            media = _media(block.media_type)
            return f"[resource <{block.uri}>{media}, {_size(block.blob)}, not shown as text]"
        case ResourceLinkBlock():
            return _link_text(block)
        case _:
            assert_never(block)


def content_text(content: Sequence[ContentBlock]) -> str:
    """Every block as text, one after the other on their own lines."""
    return "\n".join(block_text(block) for block in content)


def _link_text(block: ResourceLinkBlock) -> str:
    facts = [
        fact
        for fact in (
            block.media_type,
            None if block.size is None else f"{block.size} bytes",
        )
        if fact is not None
    ]
    head = f"[resource link: {block.title or block.name} <{block.uri}>"
    head += f" ({', '.join(facts)})]" if facts else "]"
    return f"{head} {block.description}" if block.description else head


def _media(media_type: str | None) -> str:
    return "" if media_type is None else f" ({media_type})"


def _size(base64: str) -> str:
    return f"{len(base64) * 3 // 4} bytes"


_COMPACT_JSON: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def render_json(args: object, value: object) -> tuple[ContentBlock, ...]:
    """The default renderer: a string as itself, anything else as compact JSON text.

    The pipeline hands it the checked frozen JSON of the value (not the typed value), so a
    dataclass, tuple, enum or TypedDict output renders as the JSON its schema describes.
    """
    kind = type(value)
    if kind is int:  # the scalars as the encoder writes them, without it
        text = repr(value)
    elif kind is bool:
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    elif isinstance(value, str):
        text = value
    else:
        text = _COMPACT_JSON.encode(value)
    block = TextBlockDraft()  # one per call: built with plain stores, then made a TextBlock
    block.text = text
    block.annotations = None
    block.__class__ = TextBlock  # type: ignore[assignment]  # (it is one now)
    return (block,)  # type: ignore[return-value]
