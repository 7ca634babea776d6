"""What a tool sees of its own call: identity, frozen arguments, and the run-time extensions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from typing_extensions import TypeVar

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.runtime import CancelSignal, Runtime
    from toolfx.core.tools._content import ContextMessage

__all__ = ["ToolCallIdentity", "ToolRunContext"]

Deps_co = TypeVar("Deps_co", covariant=True, default=object)
"""The type of the dependencies a body reads from `ctx.deps` (object: none declared)."""


class ToolCallIdentity(Protocol):
    """The immutable identity of one call: ids, tool name, frozen arguments and agent."""

    @property
    def call_id(self) -> str:
        """The model's id for this call."""
        ...

    @property
    def root_call_id(self) -> str:
        """The model-requested call at the root of this execution tree."""
        ...

    @property
    def name(self) -> str:
        """The tool name the call asked for."""
        ...

    @property
    def arguments(self) -> FrozenJson:
        """The losslessly snapshotted, frozen arguments."""
        ...

    @property
    def agent(self) -> str | None:
        """The agent on whose behalf the call runs, if any."""
        ...


class ToolRunContext(ToolCallIdentity, Protocol[Deps_co]):
    """Handed to a tool body: its call, its cancellation signal, the runtime, the extensions.

    `ToolRunContext[Db]` declares the dependencies a body needs: `ctx.deps` is the `Db` its
    call (`ToolCall(deps=...)`) or Location (`Location(deps=...)`) provides; `@tool` checks its
    type before the body runs.
    """

    @property
    def deps(self) -> Deps_co:
        """The dependencies provided for this call (its own, else its Location's; None if none)."""
        ...

    @property
    def signal(self) -> CancelSignal:
        """Set when the caller cancels or the tool's timeout runs out: stop cooperatively."""
        ...

    @property
    def runtime(self) -> Runtime:
        """The capabilities (sleep, blocking work, ...) of the interpreter running the call."""
        ...

    def defer_context(self, message: ContextMessage) -> None:
        """Attach a context message to this call's own result, emitted in call order."""
        ...

    def conclude_turn(self) -> None:
        """Mark a successful result as the last of the current agent turn."""
        ...

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell the runtime's progress reporter how far this call has got (finite numbers)."""
        ...
