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

import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Literal, TypeVar, final

import anyio
import anyio.lowlevel
import anyio.to_thread

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

__all__ = ["AnyioApprovals", "AnyioRuntime", "run_anyio", "run_anyio_async"]

T = TypeVar("T")

AnyioApprovals = Callable[[ApprovalRequest], ApprovalReply | Awaitable[ApprovalReply]]
"""An approval service: a plain function (runs on the loop, must not block) or an async one."""

_PASSED_ON: Final = (Exception, KeyboardInterrupt, SystemExit)
"""What gather and deadline hold while their task group winds down, then raise unchanged."""


@final
class AnyioRuntime(Runtime):
    """Capabilities on the running anyio event loop; approvals from a sync or async callback."""

    __slots__ = ("_approvals", "_on_defect")

    def __init__(
        self, approvals: AnyioApprovals | None = None, on_defect: DefectReporter = log_defect
    ) -> None:
        self._approvals = approvals
        self._on_defect = on_defect

    def now(self) -> float:
        """The event loop's monotonic clock (`anyio.current_time`; only inside the loop)."""
        return anyio.current_time()

    async def sleep(self, seconds: float, signal: CancelSignal | None = None) -> None:
        """Sleep on the loop; a signal set (from any thread) wakes it with `Cancelled`."""
        if signal is None:
            await anyio.sleep(max(seconds, 0.0))
            return
        if signal.is_cancelled():
            raise Cancelled(signal.reason or CALLER_CANCELLED)
        with anyio.CancelScope() as scope:
            unsubscribe = signal.on_cancel(_in_loop(scope.cancel))
            try:
                await anyio.sleep(max(seconds, 0.0))
            finally:
                unsubscribe()
        if scope.cancelled_caught:
            raise Cancelled(signal.reason or CALLER_CANCELLED)

    async def checkpoint(self) -> None:
        """Let other tasks run, and take the backend's cancellation if it is pending."""
        await anyio.lowlevel.checkpoint()

    async def gather(self, thunks: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
        """Run the thunks in a task group, at most `limit` at once; results in their order.

        `limit` worker tasks take the thunks in order (so they start in order on every backend,
        trio's shuffled scheduling included). The first exception cancels the others (the task
        group's own cancellation) and is raised as it was once they have finished.
        """
        if limit < 1:
            raise ValueError(f"gather needs a limit of at least 1, not {limit}")
        if not thunks:
            return []
        pending = iter(enumerate(thunks))
        results: dict[int, T] = {}
        failures: list[BaseException] = []

        async def worker() -> None:
            for index, thunk in pending:  # shared: each thunk is taken by one worker, in order
                if failures:  # a thunk swallowed the group's cancellation: start no more
                    return
                try:
                    results[index] = await thunk()
                except _PASSED_ON as error:
                    if not failures:
                        failures.append(error)
                        group.cancel_scope.cancel()
                    return

        async with anyio.create_task_group() as group:
            for _ in range(min(limit, len(thunks))):
                group.start_soon(worker)
        if failures:
            raise failures[0]
        return [results[index] for index in range(len(thunks))]

    async def deadline(
        self, seconds: float, signal: CancelSignal, thunk: Callable[[], Awaitable[T]]
    ) -> T:
        """Run `thunk`; a watcher task sets `signal` if it still runs after `seconds`.

        The thunk is never cancelled by the deadline: it sees the signal and decides. When it
        finishes, the watcher task is cancelled; the thunk's exception is raised as it was.
        """
        reason = deadline_reason(seconds)

        async def expire() -> None:
            await anyio.sleep(max(seconds, 0.0))
            try:
                signal.cancel(reason)
            except Exception as error:  # a watcher's defect must not cancel the thunk
                self.report(error, "a watcher of a deadline's signal")

        failure: BaseException | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(expire)
            try:
                result = await thunk()
            except _PASSED_ON as error:
                failure = error
            finally:
                group.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return result

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
        if isinstance(pending, str):
            return pending
        reply: ApprovalReply = "cancelled"
        with anyio.CancelScope() as scope:
            unsubscribe = signal.on_cancel(_in_loop(scope.cancel))
            try:
                reply = await pending
            finally:
                unsubscribe()
        return "cancelled" if scope.cancelled_caught else reply

    def report(self, error: BaseException, where: str) -> None:
        """Pass a contained defect to `on_defect` (by default: logged on the `toolfx` logger)."""
        self._on_defect(error, where)


def _in_loop(wake: Callable[[], None]) -> Callable[[], None]:
    """A signal watcher that runs `wake` (which must not raise) in the current loop's thread.

    Called in the loop's thread it runs `wake` at once; called in any other thread it
    schedules `wake` into the loop and returns without waiting, so a cancel() never blocks
    and never deadlocks. If the loop has finished, the waiter is gone and nothing is done.
    """
    loop_thread = threading.get_ident()
    token = anyio.lowlevel.current_token()

    def watcher() -> None:
        if threading.get_ident() == loop_thread:
            wake()
            return
        try:
            token.backend_class.run_sync_soon(wake, (), token.native_token)
        except anyio.RunFinishedError:
            return

    return watcher


def run_anyio(
    description: Description[T],
    backend: Literal["asyncio", "trio"] = "asyncio",
    runtime: Runtime | None = None,
) -> T:
    """Run `description` on a new event loop of `backend` (an `AnyioRuntime` unless given one)."""
    return anyio.run(run_anyio_async, description, runtime, backend=backend)


async def run_anyio_async(description: Description[T], runtime: Runtime | None = None) -> T:
    """Run `description` on the event loop already running (an `AnyioRuntime` unless given)."""
    return await description.program(AnyioRuntime() if runtime is None else runtime)
