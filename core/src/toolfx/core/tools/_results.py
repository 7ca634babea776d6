"""Tool execution results: a closed union of success and failure, frozen and JSON-safe."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, final

from toolfx.core.json import FrozenJson
from toolfx.core.tools._content import ContentBlock, ContextMessage
from toolfx.core.tools._failure import ToolFailure

__all__ = [
    "DurableResult",
    "ToolExecutionFailure",
    "ToolExecutionResult",
    "ToolExecutionSuccess",
    "new_success",
]


@final
@dataclass(frozen=True, slots=True, init=False)
class ToolExecutionSuccess:
    """A successful call: the canonical value (execution-local) and its model projection."""

    value: FrozenJson
    content: tuple[ContentBlock, ...]
    meta: FrozenJson = None
    additional_contexts: tuple[ContextMessage, ...] = ()
    concludes_turn: bool = False

    # Stores through the slot descriptors: half the cost of the generated frozen __init__
    # (object.__setattr__ per field); the class stays frozen. tests/unit/test_slot_stores.py
    # checks the parameters match the fields.
    def __init__(
        self,
        value: FrozenJson,
        content: tuple[ContentBlock, ...],
        meta: FrozenJson = None,
        additional_contexts: tuple[ContextMessage, ...] = (),
        concludes_turn: bool = False,
    ) -> None:
        _success_value(self, value)
        _success_content(self, content)
        _success_meta(self, meta)
        _success_contexts(self, additional_contexts)
        _success_concludes(self, concludes_turn)

    @property
    def is_error(self) -> Literal[False]:
        """Always False: a success is not an error."""
        return False


@final
@dataclass(frozen=True, slots=True, init=False)
class ToolExecutionFailure:
    """A failed call: the typed failure and the content the model sees; never a value."""

    error: ToolFailure
    content: tuple[ContentBlock, ...]
    meta: FrozenJson = None
    additional_contexts: tuple[ContextMessage, ...] = ()

    # Stores through the slot descriptors: half the cost of the generated frozen __init__
    # (object.__setattr__ per field); the class stays frozen. tests/unit/test_slot_stores.py
    # checks the parameters match the fields.
    def __init__(
        self,
        error: ToolFailure,
        content: tuple[ContentBlock, ...],
        meta: FrozenJson = None,
        additional_contexts: tuple[ContextMessage, ...] = (),
    ) -> None:
        _failure_error(self, error)
        _failure_content(self, content)
        _failure_meta(self, meta)
        _failure_contexts(self, additional_contexts)

    @property
    def is_error(self) -> Literal[True]:
        """Always True: a failure is an error."""
        return True


_success_value = ToolExecutionSuccess.__dict__["value"].__set__
_success_content = ToolExecutionSuccess.__dict__["content"].__set__
_success_meta = ToolExecutionSuccess.__dict__["meta"].__set__
_success_contexts = ToolExecutionSuccess.__dict__["additional_contexts"].__set__
_success_concludes = ToolExecutionSuccess.__dict__["concludes_turn"].__set__
_failure_error = ToolExecutionFailure.__dict__["error"].__set__
_failure_content = ToolExecutionFailure.__dict__["content"].__set__
_failure_meta = ToolExecutionFailure.__dict__["meta"].__set__
_failure_contexts = ToolExecutionFailure.__dict__["additional_contexts"].__set__

ToolExecutionResult = ToolExecutionSuccess | ToolExecutionFailure
"""The discriminated outcome of one tool call."""


def new_success(
    value: FrozenJson,
    content: tuple[ContentBlock, ...],
    meta: FrozenJson,
    additional_contexts: tuple[ContextMessage, ...],
    concludes_turn: bool,
) -> ToolExecutionSuccess:
    """`ToolExecutionSuccess(...)` of every field, at the cost of a function call (the
    constructor's stores go through the slot descriptors: a hot path builds one per call)."""
    success = _SuccessDraft()
    success.value = value
    success.content = content
    success.meta = meta
    success.additional_contexts = additional_contexts
    success.concludes_turn = concludes_turn
    success.__class__ = ToolExecutionSuccess  # type: ignore[assignment]  # (it is one now)
    return success  # type: ignore[return-value]


@final
class _SuccessDraft:
    """A `ToolExecutionSuccess` being built: the same slots, stored with plain attribute
    stores, then made the success it stands for by `__class__` assignment (the layouts are
    the same). Every field is stored before the assignment."""

    __slots__ = ToolExecutionSuccess.__slots__
    value: FrozenJson
    content: tuple[ContentBlock, ...]
    meta: FrozenJson
    additional_contexts: tuple[ContextMessage, ...]
    concludes_turn: bool


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
