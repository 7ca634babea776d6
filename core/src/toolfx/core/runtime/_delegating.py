"""A Runtime that hands every capability to another one, for wrappers to override a few."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from toolfx.core.runtime._runtime import Runtime

if TYPE_CHECKING:
    from toolfx.core.runtime._cancel import CancelSignal
    from toolfx.core.runtime._code import CodeEngine
    from toolfx.core.runtime._files import FileSystem
    from toolfx.core.runtime._processes import ProcessRunner
    from toolfx.core.runtime._remote import RemoteRunner
    from toolfx.core.runtime._runtime import ApprovalReply, ApprovalRequest, ProgressEvent
    from toolfx.core.runtime._spills import SpillStore

__all__ = ["DelegatingRuntime"]

T = TypeVar("T")


class DelegatingRuntime(Runtime):
    """Forwards every capability to `inner` unchanged: subclass it and override only what the
    wrapper changes (a tracer records, then calls the `super()` method)."""

    inner: Runtime
    """The runtime every capability not overridden goes to."""

    def __init__(self, inner: Runtime) -> None:
        self.inner = inner

    def now(self) -> float:
        """The inner runtime's `now`."""
        return self.inner.now()

    async def sleep(self, seconds: float, signal: CancelSignal | None = None) -> None:
        """The inner runtime's `sleep`."""
        await self.inner.sleep(seconds, signal)

    async def checkpoint(self) -> None:
        """The inner runtime's `checkpoint`."""
        await self.inner.checkpoint()

    async def gather(self, thunks: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
        """The inner runtime's `gather`."""
        return await self.inner.gather(thunks, limit)

    async def deadline(
        self, seconds: float, signal: CancelSignal, thunk: Callable[[], Awaitable[T]]
    ) -> T:
        """The inner runtime's `deadline`."""
        return await self.inner.deadline(seconds, signal, thunk)

    async def run_blocking(self, function: Callable[[], T]) -> T:
        """The inner runtime's `run_blocking`."""
        return await self.inner.run_blocking(function)

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """The inner runtime's `approve`."""
        return await self.inner.approve(request, signal)

    def progress(self, event: ProgressEvent) -> None:
        """The inner runtime's `progress`."""
        self.inner.progress(event)

    def report(self, error: BaseException, where: str) -> None:
        """The inner runtime's `report`."""
        self.inner.report(error, where)

    @property
    def files(self) -> FileSystem:
        """The inner runtime's `files`."""
        return self.inner.files

    @property
    def processes(self) -> ProcessRunner:
        """The inner runtime's `processes`."""
        return self.inner.processes

    @property
    def spills(self) -> SpillStore:
        """The inner runtime's `spills`."""
        return self.inner.spills

    @property
    def code(self) -> CodeEngine:
        """The inner runtime's `code`."""
        return self.inner.code

    @property
    def remote(self) -> RemoteRunner | None:
        """The inner runtime's `remote`."""
        return self.inner.remote
