"""What a resumed run tells the pipeline about a call before it runs it (a journal's memory)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from toolfx.core.pipeline._call import ToolCall
    from toolfx.core.runtime import Runtime
    from toolfx.core.tools import ToolExecutionResult

__all__ = ["Resumption"]


class Resumption(Protocol):
    """A journaled run's memory of earlier attempts, consulted for each call before it runs."""

    def settled(
        self, runtime: Runtime, call: ToolCall, *, idempotent: bool
    ) -> ToolExecutionResult | None:
        """The result `call` gets without running (replayed, refused, or left in doubt, which it
        records), or None to run it; `idempotent`: whether running it again is safe."""
        ...

    def answered(self, runtime: Runtime, call_id: str, result: ToolExecutionResult) -> None:
        """Keep what a Code Mode sub-call answered its program, before its `tool/code-dispatch`."""
        ...
