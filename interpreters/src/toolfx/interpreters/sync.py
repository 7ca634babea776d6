"""The synchronous interpreter: runs a description on the calling thread, without an event loop.

Every capability completes before it returns (a sleep blocks the thread, gather runs the thunks
one after another, a deadline is a timer thread that only sets the signal), so the program's
coroutine never yields. If it does, it awaited something foreign to the Runtime (an asyncio
future, a trio checkpoint); the interpreter refuses it with `ForeignAwaitError` instead of
blocking or spinning.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import CoroutineType
from typing import TypeVar, final

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
    RemoteRunner,
    Runtime,
    SpillStore,
    deadline_reason,
    log_defect,
)
from toolfx.interpreters._foreign import ForeignAwaitError
from toolfx.interpreters._os.files import LocalFileSystem
from toolfx.interpreters._os.spills import FolderSpills
from toolfx.interpreters._os.sync_processes import SyncProcessRunner
from toolfx.interpreters.codemode import default_engine

__all__ = ["ForeignAwaitError", "SyncInterpreter", "SyncRuntime", "run_sync"]

T = TypeVar("T")


@final
class SyncRuntime(Runtime):
    """Capabilities that complete at once on the calling thread; approvals from a callback."""

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
        approvals: Callable[[ApprovalRequest], ApprovalReply] | None = None,
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
        self._files: FileSystem = LocalFileSystem() if files is None else files
        self._processes: ProcessRunner = SyncProcessRunner() if processes is None else processes
        self._spills: SpillStore = FolderSpills() if spills is None else spills
        self._code: CodeEngine = default_engine() if code is None else code
        self._remote = remote

    def now(self) -> float:
        """Monotonic time in seconds (`time.monotonic`)."""
        return time.monotonic()

    async def sleep(self, seconds: float, signal: CancelSignal | None = None) -> None:
        """Block the thread; a signal set (from any thread) wakes it with `Cancelled`."""
        if signal is None:
            threading.Event().wait(max(seconds, 0.0))
            return
        if signal.is_cancelled():
            raise Cancelled(signal.reason or CALLER_CANCELLED)
        woken = threading.Event()
        unsubscribe = signal.on_cancel(woken.set)
        try:
            cancelled = woken.wait(max(seconds, 0.0))
        finally:
            unsubscribe()
        if cancelled:
            raise Cancelled(signal.reason or CALLER_CANCELLED)

    async def checkpoint(self) -> None:
        """Nothing else runs on this interpreter, so a checkpoint does nothing."""

    async def gather(self, thunks: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
        """Run the thunks one after another, in order (any valid `limit` gives the same)."""
        if limit < 1:
            raise ValueError(f"the concurrency limit must be at least 1, not {limit}")
        return [await thunk() for thunk in thunks]

    async def deadline(
        self, seconds: float, signal: CancelSignal, thunk: Callable[[], Awaitable[T]]
    ) -> T:
        """Run `thunk` inline; a timer thread sets `signal` if it still runs after `seconds`."""
        guard = threading.Lock()
        running = True
        reason = deadline_reason(seconds)

        def expire() -> None:
            with guard:
                if running:
                    signal.cancel(reason)

        timer = threading.Timer(max(seconds, 0.0), expire)
        timer.daemon = True
        timer.start()
        try:
            return await thunk()
        finally:
            with guard:
                running = False
            timer.cancel()
            timer.join()

    async def run_blocking(self, function: Callable[[], T]) -> T:
        """Call `function` on this thread."""
        return function()

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """Ask the approval callback; `cancelled` if `signal` is already set, else `unavailable`."""
        if signal.is_cancelled():
            return "cancelled"
        if self._approvals is None:
            return "unavailable"
        return self._approvals(request)

    def progress(self, event: ProgressEvent) -> None:
        """Pass a running call's progress to the `progress` reporter given, if any."""
        if self._on_progress is not None:
            self._on_progress(event)

    def report(self, error: BaseException, where: str) -> None:
        """Pass a contained defect to `on_defect` (by default: logged on the `toolfx` logger)."""
        self._on_defect(error, where)

    @property
    def files(self) -> FileSystem:
        """The file system given, else this machine's, each operation done inline."""
        return self._files

    @property
    def processes(self) -> ProcessRunner:
        """The process runner given, else `SyncProcessRunner` (blocks this thread)."""
        return self._processes

    @property
    def spills(self) -> SpillStore:
        """The spill store given, else `FolderSpills` in a private temporary folder."""
        return self._spills

    @property
    def code(self) -> CodeEngine:
        """The Code Mode engine given, else Monty's when installed (`default_engine`)."""
        return self._code

    @property
    def remote(self) -> RemoteRunner | None:
        """The remote runner given (None: every body runs here)."""
        return self._remote


def run_sync(description: Description[T], runtime: Runtime | None = None) -> T:
    """Run `description` to completion on this thread (a `SyncRuntime` unless one is given)."""
    runtime = SyncRuntime() if runtime is None else runtime
    eager = description.eager
    if eager is None:
        coroutine = description.program(runtime)
    else:  # started at once: a program that never waits gives its value with no coroutine
        started = eager(runtime)
        if type(started) is not CoroutineType:
            value: T = started  # type: ignore[assignment]  # (not a coroutine: the value)
            return value
        coroutine = started
    try:
        yielded = coroutine.send(None)
    except StopIteration as stop:
        result: T = stop.value
        return result
    error = ForeignAwaitError(
        "the sync interpreter (run_sync)",
        coroutine,
        yielded,
        "run the description with run_anyio, or use the Runtime's capabilities instead",
    )
    try:
        coroutine.close()
    except Exception as failure:
        raise error from failure
    raise error


@final
@dataclass(frozen=True, slots=True)
class SyncInterpreter:
    """The sync interpreter as an `Interpreter`: `run_sync` on `runtime` (a fresh `SyncRuntime`
    for each run unless one is given)."""

    runtime: Runtime | None = None

    def run(self, description: Description[T]) -> T:
        """Run `description` to completion on this thread."""
        return run_sync(description, self.runtime)
