"""A body's value together with the model content to show for it, instead of rendering it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, final

from toolfx.core.tools._content import ContentBlock

__all__ = ["WithContent"]

OutT = TypeVar("OutT")


@final
@dataclass(frozen=True, slots=True, init=False)
class WithContent(Generic[OutT]):
    """What a body may return (or wrap in `Success`): its value, checked against the declared
    output like any value, and the content the model sees, used as it is instead of
    `Output.render(args, value)` (checked to be content blocks: INVALID_TOOL_OUTPUT otherwise).
    """

    value: OutT
    content: tuple[ContentBlock, ...]

    def __init__(self, value: OutT, content: Sequence[ContentBlock]) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "content", content if type(content) is tuple else tuple(content))
