"""Content blocks: what a tool result shows the model, and context messages deferred to it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, final

from toolfx.core.json import FrozenJson

__all__ = ["ContentBlock", "ContextMessage", "ImageBlock", "TextBlock", "text"]


@final
@dataclass(frozen=True, slots=True, init=False)
class TextBlock:
    """Plain text for the model."""

    text: str
    type: ClassVar[Literal["text"]] = "text"

    # Stores through the slot descriptors: half the cost of the generated frozen __init__
    # (object.__setattr__ per field); the class stays frozen. tests/unit/test_slot_stores.py
    # checks the parameters match the fields.
    def __init__(self, text: str) -> None:
        _set_text(self, text)


_set_text = TextBlock.__dict__["text"].__set__


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
