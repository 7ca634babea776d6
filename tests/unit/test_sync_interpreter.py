"""The sync interpreter: each capability on the calling thread; run_sync without an event loop."""

from __future__ import annotations

import asyncio
import gc
import inspect
import subprocess
import sys
import threading
import time
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, TypeVar

import pytest

from tests.support import (
    approval_request,
    assert_report_hands_over,
    assert_report_logs,
    cancel_when,
)
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    CancelSignal,
    Description,
    Runtime,
)
from toolfx.interpreters._foreign import ForeignAwaitError
from toolfx.interpreters.sync import SyncRuntime, run_sync

# No test bounds a duration: a cancel or a deadline ends what waits LONG, which is never waited out.
LONG = 60.0
"""A wait that only a signal or a deadline ends."""

T = TypeVar("T")


def perform(
    program: Callable[[SyncRuntime], Awaitable[T]], runtime: SyncRuntime | None = None
) -> T:
    """Run one program that uses a SyncRuntime's capabilities directly."""
    chosen = SyncRuntime() if runtime is None else runtime

    async def wrapper(_: Runtime) -> T:
        return await program(chosen)

    return run_sync(Description(wrapper), chosen)


# now, checkpoint, run_blocking ------------------------------------------------------------------


def test_now_is_monotonic_time(monkeypatch: pytest.MonkeyPatch) -> None:
    readings = iter([41.5, 42.0])
    monkeypatch.setattr(time, "monotonic", lambda: next(readings))
    runtime = SyncRuntime()
    assert (runtime.now(), runtime.now()) == (41.5, 42.0)  # the monotonic clock, read each time


def test_checkpoint_does_nothing() -> None:
    async def program(runtime: SyncRuntime) -> str:
        await runtime.checkpoint()
        await runtime.checkpoint()
        return "done"

    assert perform(program) == "done"


def test_run_blocking_calls_the_function_on_this_thread() -> None:
    async def program(runtime: SyncRuntime) -> int:
        return await runtime.run_blocking(threading.get_ident)

    assert perform(program) == threading.get_ident()


def test_run_blocking_lets_the_function_s_exception_through() -> None:
    failure = OSError("disk gone")

    def broken() -> int:
        raise failure

    async def program(runtime: SyncRuntime) -> int:
        return await runtime.run_blocking(broken)

    with pytest.raises(OSError, match="disk gone") as caught:
        perform(program)
    assert caught.value is failure


# sleep ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("with_signal", [False, True])
def test_a_short_sleep_waits_its_whole_delay(
    with_signal: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    waited: list[float | None] = []

    class Waits(threading.Event):  # records the wait instead of spending it
        def wait(self, timeout: float | None = None) -> bool:
            waited.append(timeout)
            return False

    monkeypatch.setattr(threading, "Event", Waits)
    signal = CancelSignal() if with_signal else None

    async def program(runtime: SyncRuntime) -> None:
        await runtime.sleep(0.01, signal)

    perform(program)
    assert waited == [0.01]  # one wait, for the whole delay, that no signal cut short
    assert signal is None or not signal.is_cancelled()


@pytest.mark.parametrize("seconds", [0.0, -1.0])
def test_a_sleep_of_no_time_returns(seconds: float) -> None:
    async def program(runtime: SyncRuntime) -> None:
        await runtime.sleep(seconds)
        await runtime.sleep(seconds, CancelSignal())

    perform(program)


def test_a_sleep_cancelled_from_another_thread_returns_at_once_with_the_reason() -> None:
    signal = CancelSignal()
    sleeping = threading.Event()

    async def program(runtime: SyncRuntime) -> None:
        sleeping.set()  # a cancel landing before the wait below is taken there at once
        await runtime.sleep(LONG, signal)

    canceller = cancel_when(signal, sleeping.is_set, "the user pressed stop")
    with pytest.raises(Cancelled) as caught:
        perform(program)
    canceller.join()
    assert caught.value.reason == "the user pressed stop"
    assert str(caught.value) == "the user pressed stop"


def test_a_sleep_on_a_signal_already_set_raises_at_once() -> None:
    signal = CancelSignal()
    signal.cancel("already gone")

    async def program(runtime: SyncRuntime) -> None:
        await runtime.sleep(LONG, signal)

    with pytest.raises(Cancelled) as caught:
        perform(program)
    assert caught.value.reason == "already gone"


def test_a_signal_set_after_a_sleep_does_not_reach_back() -> None:
    signal = CancelSignal()

    async def program(runtime: SyncRuntime) -> str:
        await runtime.sleep(0.01, signal)
        signal.cancel("later")
        return "slept"

    assert perform(program) == "slept"


# gather -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 2, 100])
def test_gather_runs_the_thunks_one_after_another_in_order(limit: int) -> None:
    log: list[str] = []

    def step(name: str) -> Callable[[], Awaitable[str]]:
        async def thunk() -> str:
            log.append(f"start {name}")
            await runtime.sleep(0.001)
            await runtime.checkpoint()
            log.append(f"end {name}")
            return name.upper()

        return thunk

    runtime = SyncRuntime()

    async def program(runtime: SyncRuntime) -> list[str]:
        return await runtime.gather([step("a"), step("b"), step("c")], limit)

    assert perform(program, runtime) == ["A", "B", "C"]
    assert log == ["start a", "end a", "start b", "end b", "start c", "end c"]


def test_gather_of_nothing_is_empty() -> None:
    async def program(runtime: SyncRuntime) -> list[int]:
        return await runtime.gather([], 4)

    assert perform(program) == []


def test_gather_stops_at_the_first_exception_and_lets_it_through() -> None:
    ran: list[int] = []

    def step(index: int) -> Callable[[], Awaitable[int]]:
        async def thunk() -> int:
            ran.append(index)
            if index == 1:
                raise LookupError(f"thunk {index}")
            return index

        return thunk

    async def program(runtime: SyncRuntime) -> list[int]:
        return await runtime.gather([step(0), step(1), step(2)], 3)

    with pytest.raises(LookupError, match="thunk 1"):
        perform(program)
    assert ran == [0, 1]


# deadline ---------------------------------------------------------------------------------------


def timer_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if isinstance(thread, threading.Timer)]


def test_a_fast_thunk_leaves_the_signal_untouched_and_the_timer_is_cancelled() -> None:
    signal = CancelSignal()
    before = timer_threads()

    async def fast() -> str:
        return "quick"

    async def program(runtime: SyncRuntime) -> str:
        result = await runtime.deadline(LONG, signal, fast)
        assert timer_threads() == before  # joined, not merely told to stop: it never fires
        return result

    assert perform(program) == "quick"
    assert not signal.is_cancelled()
    assert signal.reason is None


def test_a_slow_thunk_sees_the_signal_set_with_the_reason() -> None:
    signal = CancelSignal()

    async def program(runtime: SyncRuntime) -> int:
        async def slow() -> int:
            polls = 0
            give_up = runtime.now() + LONG
            while not signal.is_cancelled() and runtime.now() < give_up:
                await runtime.sleep(0.01)
                polls += 1
            return polls

        return await runtime.deadline(0.05, signal, slow)

    polls = perform(program)
    assert signal.is_cancelled()
    assert signal.reason == "timed out after 0.05s"
    assert polls >= 1


@pytest.mark.parametrize(
    ("seconds", "reason"), [(0.05, "timed out after 0.05s"), (0, "timed out after 0s")]
)
def test_a_thunk_sleeping_on_the_signal_is_woken_by_the_deadline(
    seconds: float, reason: str
) -> None:
    signal = CancelSignal()

    async def program(runtime: SyncRuntime) -> None:
        async def sleeper() -> None:
            await runtime.sleep(LONG, signal)

        await runtime.deadline(seconds, signal, sleeper)

    with pytest.raises(Cancelled) as caught:
        perform(program)
    assert caught.value.reason == reason
    assert signal.reason == reason


def test_a_deadline_on_a_signal_already_set_keeps_the_first_reason() -> None:
    signal = CancelSignal()
    signal.cancel("by the caller")

    async def program(runtime: SyncRuntime) -> str:
        async def thunk() -> str:
            await runtime.sleep(0.1)
            return "ran anyway"

        return await runtime.deadline(0.01, signal, thunk)

    assert perform(program) == "ran anyway"
    assert signal.reason == "by the caller"


def test_a_failing_thunk_s_exception_goes_through_and_the_timer_is_cancelled() -> None:
    signal = CancelSignal()
    before = timer_threads()

    async def program(runtime: SyncRuntime) -> None:
        async def broken() -> None:
            raise ValueError("body broke")

        await runtime.deadline(LONG, signal, broken)

    with pytest.raises(ValueError, match="body broke"):
        perform(program)
    assert timer_threads() == before  # joined: it never fires
    assert not signal.is_cancelled()


# approve and report -----------------------------------------------------------------------------


def test_approve_without_a_service_is_unavailable() -> None:
    async def program(runtime: SyncRuntime) -> ApprovalReply:
        return await runtime.approve(approval_request(), CancelSignal())

    assert perform(program) == "unavailable"


def test_approve_asks_the_service_and_returns_its_scripted_replies() -> None:
    script: list[ApprovalReply] = ["allowed-once", "rejected", "allowed-always"]
    asked: list[ApprovalRequest] = []

    def service(ask: ApprovalRequest) -> ApprovalReply:
        asked.append(ask)
        return script[len(asked) - 1]

    async def program(runtime: SyncRuntime) -> list[ApprovalReply]:
        signal = CancelSignal()
        return [await runtime.approve(approval_request(f"call-{i}"), signal) for i in range(3)]

    assert perform(program, SyncRuntime(approvals=service)) == script
    assert [ask.call_id for ask in asked] == ["call-0", "call-1", "call-2"]


@pytest.mark.parametrize("with_service", [False, True])
def test_approve_on_a_cancelled_signal_is_cancelled_without_asking(with_service: bool) -> None:
    asked: list[ApprovalRequest] = []

    def service(ask: ApprovalRequest) -> ApprovalReply:
        asked.append(ask)
        return "allowed-once"

    signal = CancelSignal()
    signal.cancel()

    async def program(runtime: SyncRuntime) -> ApprovalReply:
        return await runtime.approve(approval_request(), signal)

    runtime = SyncRuntime(approvals=service if with_service else None)
    assert perform(program, runtime) == "cancelled"
    assert asked == []


def test_report_hands_the_defect_to_on_defect() -> None:
    assert_report_hands_over(lambda on_defect: SyncRuntime(on_defect=on_defect))


def test_report_logs_by_default(caplog: pytest.LogCaptureFixture) -> None:
    assert_report_logs(SyncRuntime(), caplog)


# run_sync ---------------------------------------------------------------------------------------


def test_run_sync_runs_of_map_and_bind() -> None:
    assert run_sync(Description.of(41)) == 41
    assert run_sync(Description.of(41).map(lambda n: n + 1)) == 42
    assert run_sync(Description.of(20).bind(lambda n: Description.of(str(n * 2)))) == "40"


def test_run_sync_builds_a_sync_runtime_unless_given_one() -> None:
    async def which(runtime: Runtime) -> Runtime:
        return runtime

    assert isinstance(run_sync(Description(which)), SyncRuntime)
    given = SyncRuntime()
    assert run_sync(Description(which), given) is given


def test_bind_sequences_effects_through_the_runtime() -> None:
    log: list[str] = []

    def effect(name: str, value: int) -> Description[int]:
        async def program(runtime: Runtime) -> int:
            await runtime.sleep(0.001)
            log.append(name)
            return value

        return Description(program)

    description = effect("first", 1).bind(lambda n: effect("second", n + 1)).map(lambda n: n * 10)
    assert log == []  # building performs nothing
    assert run_sync(description) == 20
    assert log == ["first", "second"]


def test_run_sync_needs_no_event_loop_and_works_inside_one() -> None:
    async def inside() -> int:
        return run_sync(Description.of(7))

    assert asyncio.run(inside()) == 7


class Spy:
    """Keeps the coroutine a description's program returned, to inspect it afterwards."""

    def __init__(self, program: Callable[[Runtime], Coroutine[Any, Any, None]]) -> None:
        self.program = program
        self.coroutines: list[Coroutine[Any, Any, None]] = []

    def __call__(self, runtime: Runtime) -> Coroutine[Any, Any, None]:
        coroutine = self.program(runtime)
        self.coroutines.append(coroutine)
        return coroutine


def test_awaiting_asyncio_is_a_foreign_await_error_and_the_coroutine_is_closed() -> None:
    cleaned_up: list[str] = []

    async def program(runtime: Runtime) -> None:
        try:
            await asyncio.sleep(0)
        finally:
            cleaned_up.append("finally")

    spy = Spy(program)
    with pytest.raises(ForeignAwaitError) as caught:
        run_sync(Description(spy))
    message = str(caught.value)
    assert "sync interpreter" in message
    assert "run_anyio" in message
    assert "asyncio.tasks.sleep()" in message
    assert isinstance(caught.value, RuntimeError)
    assert cleaned_up == ["finally"]
    assert inspect.getcoroutinestate(spy.coroutines[0]) == inspect.CORO_CLOSED
    del spy, caught
    gc.collect()  # a "never awaited" warning here would fail the test (filterwarnings=error)


def test_awaiting_a_foreign_future_names_it() -> None:
    loop = asyncio.new_event_loop()
    try:
        future: asyncio.Future[int] = loop.create_future()

        async def program(runtime: Runtime) -> int:
            return await future

        with pytest.raises(ForeignAwaitError, match="sync interpreter") as caught:
            run_sync(Description(program))
        assert "Future pending" in str(caught.value)
        assert "test_awaiting_a_foreign_future_names_it.<locals>.program()" in str(caught.value)
    finally:
        loop.close()


class Huge:
    def __repr__(self) -> str:
        return "<huge " + "x" * 10_000 + ">"


@types.coroutine
def yield_huge() -> Generator[Huge, None, None]:
    yield Huge()


def test_a_long_repr_is_truncated() -> None:
    async def program(runtime: Runtime) -> None:
        await yield_huge()

    with pytest.raises(ForeignAwaitError) as caught:
        run_sync(Description(program))
    message = str(caught.value)
    assert "<huge xxx" in message
    assert "..." in message
    assert len(message) < 1_000


def test_a_coroutine_that_fails_while_closing_is_still_a_foreign_await_error() -> None:
    async def program(runtime: Runtime) -> None:
        try:
            await asyncio.sleep(0)
        finally:
            raise ValueError("cleanup broke")

    with pytest.raises(ForeignAwaitError) as caught:
        run_sync(Description(program))
    assert isinstance(caught.value.__cause__, ValueError)


@pytest.mark.parametrize(
    "error", [ValueError("plain"), Cancelled("stopped"), KeyboardInterrupt(), SystemExit(3)]
)
def test_exceptions_from_the_program_propagate_unchanged(error: BaseException) -> None:
    async def program(runtime: Runtime) -> None:
        await runtime.checkpoint()
        raise error

    with pytest.raises(type(error)) as caught:
        run_sync(Description(program))
    assert caught.value is error


def test_the_interpreters_package_imports_no_leaves() -> None:
    code = (
        "import sys, toolfx.interpreters; "
        "bad = [m for m in sys.modules if m.startswith('toolfx.leaves')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
