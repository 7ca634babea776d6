"""Content blocks: what a tool result shows the model, and context messages deferred to it.

Every block is a frozen, slotted dataclass whose fields are strings, ints, None or frozen JSON,
tagged by its `type` class variable. `annotations` carries MCP annotations (audience, priority,
lastModified, ...) as the frozen JSON object the server sent, or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, final

from toolfx.core.json import FrozenJson

__all__ = [
    "AudioBlock",
    "ContentBlock",
    "ContextMessage",
    "ImageBlock",
    "ResourceBlobBlock",
    "ResourceLinkBlock",
    "ResourceTextBlock",
    "TextBlock",
    "TextBlockDraft",
    "text",
]


@final
@dataclass(frozen=True, slots=True, init=False, repr=False)
class TextBlock:
    """Plain text for the model."""

    text: str
    annotations: FrozenJson = None
    type: ClassVar[Literal["text"]] = "text"

    # Stores through the slot descriptors: half the cost of the generated frozen __init__
    # (object.__setattr__ per field); the class stays frozen. tests/unit/test_slot_stores.py
    # checks the parameters match the fields.
    def __init__(self, text: str, annotations: FrozenJson = None) -> None:
        _set_text(self, text)
        _set_annotations(self, annotations)

    def __repr__(self) -> str:
        if self.annotations is None:  # the common case, as plain text blocks always read
            return f"TextBlock(text={self.text!r})"
        return f"TextBlock(text={self.text!r}, annotations={self.annotations!r})"


_set_text = TextBlock.__dict__["text"].__set__
_set_annotations = TextBlock.__dict__["annotations"].__set__


@final
class TextBlockDraft:
    """A `TextBlock` being built on a hot path (the default renderer's, once per call): the
    same slots, stored with plain attribute stores, then made the block it stands for by
    `__class__` assignment (the layouts are the same). Both fields must be stored first."""

    __slots__ = TextBlock.__slots__
    text: str
    annotations: FrozenJson


@final
@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An image for the model, base64-encoded, with its media type (e.g. image/png)."""

    data: str
    media_type: str
    annotations: FrozenJson = None
    type: ClassVar[Literal["image"]] = "image"


@final
@dataclass(frozen=True, slots=True)
class AudioBlock:
    """Audio for the model, base64-encoded, with its media type (e.g. audio/wav)."""

    data: str
    media_type: str
    annotations: FrozenJson = None
    type: ClassVar[Literal["audio"]] = "audio"


@final
@dataclass(frozen=True, slots=True)
class ResourceTextBlock:
    """An embedded resource with text contents: its URI, the text, and its media type if known."""

    uri: str
    text: str
    media_type: str | None = None
    annotations: FrozenJson = None
    type: ClassVar[Literal["resource_text"]] = "resource_text"


@final
@dataclass(frozen=True, slots=True)
class ResourceBlobBlock:
    """An embedded resource with binary contents (base64) and its media type if known."""

    uri: str
    blob: str
    media_type: str | None = None
    annotations: FrozenJson = None
    type: ClassVar[Literal["resource_blob"]] = "resource_blob"


@final
@dataclass(frozen=True, slots=True)
class ResourceLinkBlock:
    """A link to a resource the model (or its client) may read: URI, name and what is known."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    media_type: str | None = None
    size: int | None = None
    annotations: FrozenJson = None
    type: ClassVar[Literal["resource_link"]] = "resource_link"


ContentBlock = (
    TextBlock | ImageBlock | AudioBlock | ResourceTextBlock | ResourceBlobBlock | ResourceLinkBlock
)
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
