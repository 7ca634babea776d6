"""The anyio interpreter: runs a description on an event loop (asyncio or trio), concurrently.

Sleeps and deadlines use the loop's clock, gather is a task group of `limit` workers,
plain functions run in worker threads. A caller's `CancelSignal` may be set from any thread:
its watcher wakes the waiting task at once when it runs in the loop's thread, and otherwise
schedules the wake-up into the loop without blocking the cancelling thread. The signal only
ever ends a wait early; the backend's own cancellation, KeyboardInterrupt and SystemExit are
never caught to be converted, and the thunks' exceptions leave gather and deadline as they were
raised, not wrapped in exception groups.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, final

import anyio
import anyio.to_thread

from toolfx.core.runtime import (
    CALLER_CANCELLED,
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    CancelSignal,
    CodeEngine,
    DefectReporter,
    Description,
    FileSystem,
    ProcessRunner,
    ProgressEvent,
    ProgressReporter,
    RejectedWithFeedback,
    RemoteRunner,
    Runtime,
    SpillStore,
    deadline_reason,
    log_defect,
)
from toolfx.interpreters._os.files import AnyioFileSystem
from toolfx.interpreters._os.spills import AnyioFolderSpills
from toolfx.interpreters.anyio._deadlines import LoopDeadlines, deadlines_of
from toolfx.interpreters.anyio._pool import on_asyncio, run_pool
from toolfx.interpreters.anyio._processes import AnyioProcessRunner
from toolfx.interpreters.anyio._wake import in_loop
from toolfx.interpreters.codemode import default_engine

__all__ = ["AnyioApprovals", "AnyioInterpreter", "AnyioRuntime", "run_anyio", "run_anyio_async"]

T = TypeVar("T")

AnyioApprovals = Callable[[ApprovalRequest], ApprovalReply | Awaitable[ApprovalReply]]
"""An approval service: a plain function (runs on the loop, must not block) or an async one."""


@final
class AnyioRuntime(Runtime):
    """Capabilities on the running anyio event loop; approvals from a sync or async callback."""

    __slots__ = (
        "_approvals",
        "_code",
        "_files",
        "_on_defect",
        "_on_progress",
        "_processes",
        "_remote",
        "_spills",
    )

    def __init__(
        self,
        approvals: AnyioApprovals | None = None,
        on_defect: DefectReporter = log_defect,
        *,
        files: FileSystem | None = None,
        processes: ProcessRunner | None = None,
        spills: SpillStore | None = None,
        progress: ProgressReporter | None = None,
        code: CodeEngine | None = None,
        remote: RemoteRunner | None = None,
    ) -> None:
        self._approvals = approvals
        self._on_defect = on_defect
        self._on_progress = progress
        self._files: FileSystem = AnyioFileSystem() if files is None else files
        self._processes: ProcessRunner = AnyioProcessRunner() if processes is None else processes
        self._spills: SpillStore = AnyioFolderSpills() if spills is None else spills
        self._code: CodeEngine = default_engine() if code is None else code
        self._remote = remote

    def now(self) -> float:
        """The event loop's monotonic clock (`anyio.current_time`; only inside the loop)."""
        return anyio.current_time()

    def sleep(
        self, seconds: float, signal: CancelSignal | None = None
    ) -> Coroutine[Any, Any, None]:
        """Sleep on the loop; a signal set (from any thread) wakes it with `Cancelled`.

        Without a signal it is the backend's own sleep coroutine (asyncio's or trio's directly:
        no anyio lookup and no extra frame kept alive while a thousand calls sleep).
        """
        delay = max(seconds, 0.0)
        if signal is None:
            return asyncio.sleep(delay) if on_asyncio() else _trio_sleep(delay)
        return _watched_sleep(delay, signal)

    def checkpoint(self) -> Coroutine[Any, Any, None]:
        """Let other tasks run, and take the backend's cancellation if it is pending (the
        backend's own checkpoint coroutine, as anyio's `checkpoint` awaits it)."""
        return asyncio.sleep(0) if on_asyncio() else _trio_checkpoint()

    async def gather(self, thunks: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
        """Run the thunks in a task group, at most `limit` at once; results in their order.

        `limit` worker tasks take the thunks in order (so they start in order on every backend,
        trio's shuffled scheduling included). The first exception cancels the others and is
        raised as it was once they have finished (see `_pool.py`).
        """
        if limit < 1:
            raise ValueError(f"gather needs a limit of at least 1, not {limit}")
        if not thunks:
            return []
        return await run_pool(thunks, limit)

    async def deadline(
        self, seconds: float, signal: CancelSignal, thunk: Callable[[], Awaitable[T]]
    ) -> T:
        """Run `thunk`; a timer sets `signal` if it still runs after `seconds`.

        The thunk is never cancelled by the deadline: it sees the signal and decides; its
        exception is raised as it was. Every deadline of the loop shares one timer
        (`_deadlines.py`: asyncio's `call_at`, or one service task per trio run): no task,
        task group or timer handle per call.
        """

        def expire() -> None:
            try:
                signal.cancel(deadline_reason(seconds))
            except Exception as error:  # a watcher's defect must not cancel the thunk
                self.report(error, "a watcher of a deadline's signal")

        timer = _loop_deadlines().add(max(seconds, 0.0), expire)
        try:
            return await thunk()
        finally:
            timer.cancel()

    async def run_blocking(self, function: Callable[[], T]) -> T:
        """Call `function` in a worker thread (`anyio.to_thread.run_sync`) and wait for it."""
        return await anyio.to_thread.run_sync(function)

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """Ask the approval callback; `cancelled` if `signal` is set before it answers.

        `unavailable` without a callback. A plain callback answers at once on the loop; an
        async one is cancelled (by a cancel scope of its own) when the signal is set first.
        """
        if signal.is_cancelled():
            return "cancelled"
        if self._approvals is None:
            return "unavailable"
        pending = self._approvals(request)
        if isinstance(pending, str | RejectedWithFeedback):
            return pending
        reply: ApprovalReply = "cancelled"
        with anyio.CancelScope() as scope:
            unsubscribe = signal.on_cancel(in_loop(scope.cancel))
            try:
                reply = await pending
            finally:
                unsubscribe()
        return "cancelled" if scope.cancelled_caught else reply

    def progress(self, event: ProgressEvent) -> None:
        """Pass a running call's progress to the `progress` reporter given, if any."""
        if self._on_progress is not None:
            self._on_progress(event)

    def report(self, error: BaseException, where: str) -> None:
        """Pass a contained defect to `on_defect` (by default: logged on the `toolfx` logger)."""
        self._on_defect(error, where)

    @property
    def files(self) -> FileSystem:
        """The file system given, else this machine's, each operation in a worker thread."""
        return self._files

    @property
    def processes(self) -> ProcessRunner:
        """The process runner given, else `AnyioProcessRunner` (on this loop)."""
        return self._processes

    @property
    def spills(self) -> SpillStore:
        """The spill store given, else `AnyioFolderSpills` in a private temporary folder."""
        return self._spills

    @property
    def code(self) -> CodeEngine:
        """The Code Mode engine given, else Monty's when installed (`default_engine`)."""
        return self._code

    @property
    def remote(self) -> RemoteRunner | None:
        """The remote runner given (None: every body runs here)."""
        return self._remote


def _trio_sleep(delay: float) -> Coroutine[Any, Any, None]:
    import trio  # noqa: PLC0415 (on trio only)

    return trio.sleep(delay)


def _trio_checkpoint() -> Coroutine[Any, Any, None]:
    import trio.lowlevel  # noqa: PLC0415 (on trio only)

    return trio.lowlevel.checkpoint()


def _loop_deadlines() -> LoopDeadlines:
    """The running loop's deadlines: asyncio's, else (anyio's other backend) the trio run's."""
    if on_asyncio():
        return deadlines_of(asyncio.get_running_loop())
    from toolfx.interpreters.anyio._trio import trio_deadlines  # noqa: PLC0415 (trio only)

    return trio_deadlines()


async def _watched_sleep(delay: float, signal: CancelSignal) -> None:
    if signal.is_cancelled():
        raise Cancelled(signal.reason or CALLER_CANCELLED)
    with anyio.CancelScope() as scope:
        unsubscribe = signal.on_cancel(in_loop(scope.cancel))
        try:
            await anyio.sleep(delay)
        finally:
            unsubscribe()
    if scope.cancelled_caught:
        raise Cancelled(signal.reason or CALLER_CANCELLED)


def run_anyio(
    description: Description[T],
    backend: Literal["asyncio", "trio"] = "asyncio",
    runtime: Runtime | None = None,
) -> T:
    """Run `description` on a new event loop of `backend` (an `AnyioRuntime` unless given one)."""
    outcome: list[T] = []

    async def main() -> None:  # returns None: asyncio's runner takes the repr of its main
        outcome.append(await run_anyio_async(description, runtime))  # task, result included

    anyio.run(main, backend=backend)
    return outcome[0]


async def run_anyio_async(description: Description[T], runtime: Runtime | None = None) -> T:
    """Run `description` on the event loop already running (an `AnyioRuntime` unless given)."""
    return await description.program(AnyioRuntime() if runtime is None else runtime)


@final
@dataclass(frozen=True, slots=True)
class AnyioInterpreter:
    """The anyio interpreter as an `Interpreter`: `run_anyio` on a new loop of `backend` for each
    run, with `runtime` (a fresh `AnyioRuntime` for each run unless one is given)."""

    backend: Literal["asyncio", "trio"] = "asyncio"
    runtime: Runtime | None = None

    def run(self, description: Description[T]) -> T:
        """Run `description` to completion on a new event loop."""
        return run_anyio(description, self.backend, self.runtime)
