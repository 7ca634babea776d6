"""Content blocks: what a tool result shows the model, and context messages deferred to it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, final

from toolfx.core.json import FrozenJson
from toolfx.core.slot_init import slot_init

__all__ = ["ContentBlock", "ContextMessage", "ImageBlock", "TextBlock", "text"]


@final
@slot_init
@dataclass(frozen=True, slots=True)
class TextBlock:
    """Plain text for the model."""

    text: str
    type: ClassVar[Literal["text"]] = "text"


@final
@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An image for the model, base64-encoded, with its media type (e.g. image/png)."""

    data: str
    media_type: str
    type: ClassVar[Literal["image"]] = "image"


ContentBlock = TextBlock | ImageBlock
"""One block of model-facing content."""


@final
@dataclass(frozen=True, slots=True)
class ContextMessage:
    """A user-role message a tool defers until its result reaches the agent loop."""

    content: tuple[ContentBlock, ...]
    source: str
    meta: FrozenJson = None


def text(value: str) -> tuple[ContentBlock, ...]:
    """Model content made of one text block."""
    return (TextBlock(value),)
