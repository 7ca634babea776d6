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
import types
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Final, TypeVar, final

from toolfx.core.cancel import CALLER_CANCELLED, CancelSignal
from toolfx.core.description import Description
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    DefectReporter,
    Runtime,
    deadline_reason,
    log_defect,
)

__all__ = ["ForeignAwaitError", "SyncRuntime", "run_sync"]

T = TypeVar("T")

REPR_LIMIT: Final = 200
"""How many characters of a foreign awaitable's repr an error message shows."""

_CHAIN_LIMIT: Final = 1000
"""How deep `_awaited` follows a chain of awaits (a guard against odd awaitables)."""


class ForeignAwaitError(RuntimeError):
    """A defect: a description run by `run_sync` awaited something no sync capability yields."""

    def __init__(self, awaited: str, yielded: str) -> None:
        super().__init__(
            f"the sync interpreter (run_sync) cannot run this description: it awaited {awaited},"
            f" which yielded {yielded} to an event loop. Sync capabilities never suspend, so"
            " this awaitable comes from outside the Runtime (asyncio, trio or anyio); run the"
            " description with run_anyio, or use the Runtime's capabilities instead"
        )
        self.awaited = awaited
        self.yielded = yielded


@final
class SyncRuntime(Runtime):
    """Capabilities that complete at once on the calling thread; approvals from a callback."""

    __slots__ = ("_approvals", "_on_defect")

    def __init__(
        self,
        approvals: Callable[[ApprovalRequest], ApprovalReply] | None = None,
        on_defect: DefectReporter = log_defect,
    ) -> None:
        self._approvals = approvals
        self._on_defect = on_defect

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

    def report(self, error: BaseException, where: str) -> None:
        """Pass a contained defect to `on_defect` (by default: logged on the `toolfx` logger)."""
        self._on_defect(error, where)


def run_sync(description: Description[T], runtime: Runtime | None = None) -> T:
    """Run `description` to completion on this thread (a `SyncRuntime` unless one is given)."""
    coroutine = description.program(SyncRuntime() if runtime is None else runtime)
    try:
        yielded = coroutine.send(None)
    except StopIteration as stop:
        result: T = stop.value
        return result
    error = ForeignAwaitError(_awaited(coroutine), _truncated(repr(yielded)))
    try:
        coroutine.close()
    except Exception as failure:
        raise error from failure
    raise error


def _awaited(coroutine: Coroutine[Any, Any, Any]) -> str:
    """What the innermost suspended coroutine awaits, and that coroutine's `module.qualname`."""
    holder: Coroutine[Any, Any, Any] = coroutine
    awaited: object = getattr(coroutine, "cr_await", None)
    for _ in range(_CHAIN_LIMIT):
        if isinstance(awaited, types.CoroutineType) and awaited.cr_await is not None:
            holder, awaited = awaited, awaited.cr_await
        elif isinstance(awaited, types.GeneratorType) and awaited.gi_yieldfrom is not None:
            awaited = awaited.gi_yieldfrom
        else:
            break
    return f"{_truncated(repr(awaited))} in {_coroutine_name(holder)}"


def _coroutine_name(coroutine: Coroutine[Any, Any, Any]) -> str:
    frame = getattr(coroutine, "cr_frame", None)
    module = frame.f_globals.get("__name__") if isinstance(frame, types.FrameType) else None
    name = getattr(coroutine, "__qualname__", type(coroutine).__qualname__)
    return _truncated(f"{module}.{name}()" if isinstance(module, str) else f"{name}()")


def _truncated(text: str) -> str:
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 3] + "..."
