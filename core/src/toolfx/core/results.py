"""Tool execution results: a closed union of success and failure, frozen and JSON-safe."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, final

from toolfx.core.content import ContentBlock, ContextMessage
from toolfx.core.failure import ToolFailure
from toolfx.core.json import FrozenJson
from toolfx.core.slot_init import slot_init

__all__ = ["DurableResult", "ToolExecutionFailure", "ToolExecutionResult", "ToolExecutionSuccess"]


@final
@slot_init
@dataclass(frozen=True, slots=True)
class ToolExecutionSuccess:
    """A successful call: the canonical value (execution-local) and its model projection."""

    value: FrozenJson
    content: tuple[ContentBlock, ...]
    meta: FrozenJson = None
    additional_contexts: tuple[ContextMessage, ...] = ()
    concludes_turn: bool = False

    @property
    def is_error(self) -> Literal[False]:
        """Always False: a success is not an error."""
        return False


@final
@slot_init
@dataclass(frozen=True, slots=True)
class ToolExecutionFailure:
    """A failed call: the typed failure and the content the model sees; never a value."""

    error: ToolFailure
    content: tuple[ContentBlock, ...]
    meta: FrozenJson = None
    additional_contexts: tuple[ContextMessage, ...] = ()

    @property
    def is_error(self) -> Literal[True]:
        """Always True: a failure is an error."""
        return True


ToolExecutionResult = ToolExecutionSuccess | ToolExecutionFailure
"""The discriminated outcome of one tool call."""


@final
@dataclass(frozen=True, slots=True)
class DurableResult:
    """The durable projection of a result (no canonical value): what logs keep and replays see."""

    content: tuple[ContentBlock, ...]
    error: ToolFailure | None = None
    meta: FrozenJson = None

    @property
    def is_error(self) -> bool:
        """Whether the call failed."""
        return self.error is not None

    @classmethod
    def of(cls, result: ToolExecutionResult) -> DurableResult:
        """The durable projection of a live result."""
        error = result.error if isinstance(result, ToolExecutionFailure) else None
        return cls(result.content, error, result.meta)
