"""What the `run_code` body needs from the pipeline: sub-dispatch and the outcome's meta."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, final, runtime_checkable

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.tools import ToolExecutionResult

__all__ = ["CodeHost", "SubCall"]


@final
@dataclass(frozen=True, slots=True)
class SubCall:
    """One tool call a program made: its number in the program (from 1), tool and arguments."""

    number: int
    name: str
    arguments: Mapping[str, object]


@runtime_checkable
class CodeHost(Protocol):
    """The pipeline's side of a `run_code` call (its body's context implements it)."""

    def dispatch_code(
        self, calls: Sequence[SubCall], limit: int
    ) -> Awaitable[tuple[ToolExecutionResult, ...]]:
        """Run `calls` through the pipeline as sub-dispatches of this call, like one batch
        (`limit` parallel-safe ones at once); one result each, in their order."""
        ...

    def attach_meta(self, meta: FrozenJson) -> None:
        """Give this call's result `meta` (the program's sub-call summary)."""
        ...
