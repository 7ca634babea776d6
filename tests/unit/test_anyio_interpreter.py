"""The anyio interpreter: every capability, run_anyio and the pipeline, on asyncio and on trio."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypedDict, TypeVar

import anyio
import pytest
import trio

from tests.support import (
    approval_request,
    assert_report_hands_over,
    assert_report_logs,
    cancel_when,
)
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    CancelSignal,
    Description,
    Runtime,
)
from toolfx.core.tools import (
    ErrorCode,
    Output,
    TextBlock,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio, run_anyio_async
from toolfx.interpreters.anyio._wake import in_loop

# No test bounds a duration: what overlaps is counted, a cancel comes once what it interrupts
# has begun, and HANG only turns a hang into a failure.
HANG = 30.0
"""Seconds after which a wait that should have ended counts as a hang (not a speed bound)."""
LONG = 60.0
"""A wait that only a signal or a cancellation ends (it is never waited out)."""

Backend = Literal["asyncio", "trio"]
T = TypeVar("T")

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"], scope="module")
def anyio_backend(request: pytest.FixtureRequest) -> Backend:
    """Every test here runs on both backends (async tests through anyio's pytest plugin)."""
    backend: Backend = request.param
    return backend


# now, checkpoint, run_blocking ------------------------------------------------------------------


async def test_now_is_the_loop_s_monotonic_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    readings = iter([41.5, 42.0])
    monkeypatch.setattr(anyio, "current_time", lambda: next(readings))  # the loop's clock
    runtime = AnyioRuntime()
    assert (runtime.now(), runtime.now()) == (41.5, 42.0)  # read each time, nothing kept


async def test_checkpoint_lets_another_task_run() -> None:
    runtime = AnyioRuntime()
    ran: list[str] = []

    async def other() -> None:
        ran.append("other")

    async with anyio.create_task_group() as group:
        group.start_soon(other)
        for _ in range(100):
            if ran:
                break
            await runtime.checkpoint()
        assert ran == ["other"]


async def test_run_blocking_runs_the_function_in_a_worker_thread() -> None:
    runtime = AnyioRuntime()
    loop_thread = threading.get_ident()
    worker = await runtime.run_blocking(threading.get_ident)
    assert worker != loop_thread


async def test_run_blocking_does_not_block_the_loop() -> None:
    runtime = AnyioRuntime()
    ticks: list[float] = []
    ticked = threading.Event()

    async def ticker() -> None:
        for _ in range(5):
            ticks.append(runtime.now())
            await anyio.sleep(0.01)
        ticked.set()

    async with anyio.create_task_group() as group:
        group.start_soon(ticker)
        assert await runtime.run_blocking(lambda: ticked.wait(HANG))  # the loop ticked meanwhile
        assert len(ticks) == 5


async def test_run_blocking_lets_the_function_s_exception_through() -> None:
    failure = OSError("disk gone")

    def broken() -> int:
        raise failure

    with pytest.raises(OSError, match="disk gone") as caught:
        await AnyioRuntime().run_blocking(broken)
    assert caught.value is failure


# sleep ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("with_signal", [False, True])
async def test_a_short_sleep_waits_its_whole_delay_on_the_backend(
    with_signal: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[float] = []
    backend_sleeps = {"asyncio": asyncio.sleep, "anyio": anyio.sleep, "trio": trio.sleep}

    def recorded(name: str) -> Callable[[float], Awaitable[None]]:
        async def sleep(delay: float) -> None:  # records the delay, then only yields
            if delay:
                asked.append(delay)
            await backend_sleeps[name](0)

        return sleep

    monkeypatch.setattr(asyncio, "sleep", recorded("asyncio"))
    monkeypatch.setattr(anyio, "sleep", recorded("anyio"))
    monkeypatch.setattr(trio, "sleep", recorded("trio"))
    signal = CancelSignal() if with_signal else None
    await AnyioRuntime().sleep(0.01, signal)
    assert asked == [0.01]  # the whole delay went to the loop's own sleep, once
    assert signal is None or not signal.is_cancelled()


@pytest.mark.parametrize("seconds", [0.0, -1.0])
async def test_a_sleep_of_no_time_returns(seconds: float) -> None:
    runtime = AnyioRuntime()
    await runtime.sleep(seconds)
    await runtime.sleep(seconds, CancelSignal())


async def test_a_sleep_cancelled_from_another_thread_returns_at_once_with_the_reason() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()
    caught: list[Cancelled] = []
    waiting = threading.Event()
    canceller = cancel_when(signal, waiting.is_set, "the user pressed stop")

    async def sleeper() -> None:
        try:
            await runtime.sleep(LONG, signal)
        except Cancelled as cancelled:
            caught.append(cancelled)

    with anyio.fail_after(HANG):
        async with anyio.create_task_group() as group:
            group.start_soon(sleeper)
            await anyio.wait_all_tasks_blocked()  # the sleep waits: now the thread cancels
            waiting.set()
    canceller.join()
    assert [c.reason for c in caught] == ["the user pressed stop"]
    assert str(caught[0]) == "the user pressed stop"


async def test_a_sleep_cancelled_from_inside_the_loop_does_not_deadlock() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()
    outcome: list[str] = []

    async def sleeper() -> None:
        try:
            await runtime.sleep(LONG, signal)
        except Cancelled as cancelled:
            outcome.append(cancelled.reason)

    async with anyio.create_task_group() as group:
        group.start_soon(sleeper)
        await anyio.wait_all_tasks_blocked()  # the sleep waits
        signal.cancel("another task")
    assert outcome == ["another task"]


async def test_a_sleep_cancelled_from_a_worker_thread_of_the_same_loop() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()
    outcome: list[str] = []

    async def sleeper() -> None:
        try:
            await runtime.sleep(LONG, signal)
        except Cancelled as cancelled:
            outcome.append(cancelled.reason)

    with anyio.fail_after(HANG):
        async with anyio.create_task_group() as group:
            group.start_soon(sleeper)
            await anyio.wait_all_tasks_blocked()  # the sleep waits
            await runtime.run_blocking(lambda: signal.cancel("from a worker"))
    assert outcome == ["from a worker"]


async def test_a_cancel_from_another_thread_never_waits_for_a_busy_loop() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()
    outcome: list[str] = []

    def cancel_and_time() -> None:
        signal.cancel("from a thread")

    async def sleeper() -> None:
        try:
            await runtime.sleep(LONG, signal)
        except Cancelled as cancelled:
            outcome.append(cancelled.reason)

    async with anyio.create_task_group() as group:
        group.start_soon(sleeper)
        await anyio.wait_all_tasks_blocked()  # the sleep waits
        thread = threading.Thread(target=cancel_and_time)
        thread.start()
        thread.join(timeout=30)  # the loop is blocked here: a cancel waiting for it would hang
        assert not thread.is_alive()
    assert outcome == ["from a thread"]


async def test_a_sleep_on_a_signal_already_set_raises_at_once() -> None:
    signal = CancelSignal()
    signal.cancel("already gone")
    with pytest.raises(Cancelled) as caught:
        await AnyioRuntime().sleep(LONG, signal)
    assert caught.value.reason == "already gone"


async def test_a_signal_set_after_a_sleep_does_not_reach_back() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()
    await runtime.sleep(0.01, signal)
    signal.cancel("later")
    await runtime.sleep(0.01)  # anything scheduled by the cancel runs harmlessly here


async def test_the_backend_s_cancellation_of_a_sleep_is_its_own() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()
    with anyio.move_on_after(0.05) as scope:
        await runtime.sleep(LONG, signal)
    assert scope.cancelled_caught
    assert not signal.is_cancelled()
    signal.cancel("after the scope")  # the sleep unsubscribed: nothing to wake, nothing raised


def test_a_wake_up_after_the_loop_finished_is_dropped(anyio_backend: Backend) -> None:
    woken: list[str] = []
    watchers: list[Callable[[], None]] = []

    async def program(runtime: Runtime) -> None:
        watchers.append(in_loop(lambda: woken.append("woken")))

    run_anyio(Description(program), anyio_backend)
    thread = threading.Thread(target=watchers[0])
    thread.start()
    thread.join()
    assert woken == []


# gather -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 2, 100])
async def test_gather_gives_the_results_in_the_order_of_the_thunks(limit: int) -> None:
    runtime = AnyioRuntime()

    def step(index: int) -> Callable[[], Awaitable[str]]:
        async def thunk() -> str:
            await runtime.sleep(0.005 * (4 - index))  # the later ones finish first
            return f"r{index}"

        return thunk

    assert await runtime.gather([step(i) for i in range(5)], limit) == [
        "r0",
        "r1",
        "r2",
        "r3",
        "r4",
    ]


@pytest.mark.parametrize("limit", [1, 2, 100])
async def test_gather_starts_the_thunks_in_their_order(limit: int) -> None:
    runtime = AnyioRuntime()
    log: list[str] = []

    def step(name: str) -> Callable[[], Awaitable[str]]:
        async def thunk() -> str:
            log.append(f"start {name}")
            await runtime.sleep(0.001)
            await runtime.checkpoint()
            log.append(f"end {name}")
            return name.upper()

        return thunk

    assert await runtime.gather([step(n) for n in "abcd"], limit) == ["A", "B", "C", "D"]
    assert [entry for entry in log if entry.startswith("start")] == [
        "start a",
        "start b",
        "start c",
        "start d",
    ]
    if limit == 1:
        assert log == [f"{what} {n}" for n in "abcd" for what in ("start", "end")]


@pytest.mark.parametrize("limit", [1, 3, 12, 50])
async def test_gather_never_runs_more_than_the_limit_at_once(limit: int) -> None:
    runtime = AnyioRuntime()
    active = started = peak = 0

    async def thunk() -> int:
        nonlocal active, started, peak
        active += 1
        started += 1
        peak = max(peak, active)
        while active < limit and started < 12:  # wait for all the limit lets in: a count
            await runtime.checkpoint()
        await runtime.checkpoint()
        active -= 1
        return peak

    with anyio.fail_after(HANG):  # only against a hang
        results = await runtime.gather([thunk] * 12, limit)
    assert len(results) == 12
    assert peak == min(limit, 12)
    assert active == 0


async def test_gather_really_overlaps_the_thunks() -> None:
    runtime = AnyioRuntime()

    asleep: list[int] = []
    peak = 0

    async def nap() -> None:
        nonlocal peak
        asleep.append(1)
        peak = max(peak, len(asleep))
        while peak < 10:  # each waits for all the others: they overlap, or this hangs
            await runtime.sleep(0.001)
        asleep.pop()

    with anyio.fail_after(HANG):  # only against a hang
        await runtime.gather([nap] * 10, 10)
    assert peak == 10  # all ten asleep at once: counted, not timed


async def test_gather_with_a_limit_of_one_runs_one_after_another() -> None:
    runtime = AnyioRuntime()

    asleep: list[int] = []
    peak = 0

    async def nap() -> None:
        nonlocal peak
        asleep.append(1)
        peak = max(peak, len(asleep))
        await runtime.sleep(0.02)
        asleep.pop()

    await runtime.gather([nap] * 4, 1)
    assert peak == 1  # never two asleep at once: counted, not timed


async def test_gather_of_nothing_is_empty() -> None:
    assert await AnyioRuntime().gather([], 4) == []


@pytest.mark.parametrize("limit", [0, -3])
async def test_gather_refuses_a_limit_below_one(limit: int) -> None:
    async def thunk() -> int:
        return 1

    with pytest.raises(ValueError, match="at least 1"):
        await AnyioRuntime().gather([thunk], limit)


async def test_gather_lets_the_first_exception_through_and_cancels_the_others() -> None:
    runtime = AnyioRuntime()
    failure = LookupError("thunk 1")
    log: list[str] = []

    async def quick() -> int:
        return 0

    async def broken() -> int:
        await runtime.sleep(0.01)
        raise failure

    async def slow() -> int:
        try:
            await runtime.sleep(LONG)
            log.append("slow finished")
        finally:
            log.append("slow cleaned up")
        return 2

    with pytest.raises(LookupError) as caught:
        await runtime.gather([quick, broken, slow], 3)
    assert caught.value is failure  # as raised: not wrapped in an exception group
    assert log == ["slow cleaned up"]


@pytest.mark.parametrize(("limit", "started"), [(2, [0, 1]), (3, [0, 1, 2])])
async def test_an_outer_cancellation_of_gather_stays_the_backend_s(
    limit: int, started: list[int]
) -> None:
    runtime = AnyioRuntime()
    cleaned: list[int] = []

    def step(index: int) -> Callable[[], Awaitable[int]]:
        async def thunk() -> int:
            try:
                await runtime.sleep(LONG)
            finally:
                cleaned.append(index)
            return index

        return thunk

    left: list[type[BaseException]] = []
    with anyio.move_on_after(0.05) as scope:
        try:
            await runtime.gather([step(i) for i in range(3)], limit)
        except BaseException as error:
            left.append(type(error))
            raise
    assert scope.cancelled_caught
    assert left == [anyio.get_cancelled_exc_class()]  # one cancellation, not a group of them
    assert sorted(cleaned) == started  # below the limit, the third never started


# deadline ---------------------------------------------------------------------------------------


async def test_a_fast_thunk_leaves_the_signal_untouched() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()

    async def fast() -> str:
        return "quick"

    assert await runtime.deadline(0.05, signal, fast) == "quick"
    await runtime.sleep(0.15)  # well past the deadline: the watcher task is gone
    assert not signal.is_cancelled()
    assert signal.reason is None


async def test_a_slow_thunk_sees_the_signal_set_with_the_reason() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()

    async def slow() -> int:
        polls = 0
        give_up = runtime.now() + LONG
        while not signal.is_cancelled() and runtime.now() < give_up:
            await runtime.sleep(0.01)
            polls += 1
        return polls

    polls = await runtime.deadline(0.05, signal, slow)
    assert signal.reason == "timed out after 0.05s"
    assert polls >= 1


@pytest.mark.parametrize(
    ("seconds", "reason"), [(0.05, "timed out after 0.05s"), (0, "timed out after 0s")]
)
async def test_a_thunk_sleeping_on_the_signal_is_woken_by_the_deadline(
    seconds: float, reason: str
) -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()

    async def sleeper() -> None:
        await runtime.sleep(LONG, signal)

    with pytest.raises(Cancelled) as caught:
        await runtime.deadline(seconds, signal, sleeper)
    assert caught.value.reason == reason
    assert signal.reason == reason


async def test_the_deadline_never_cancels_the_thunk_itself() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()

    async def stubborn() -> str:
        await anyio.sleep(0.15)  # ignores the signal: it still runs to the end
        return "finished anyway"

    assert await runtime.deadline(0.02, signal, stubborn) == "finished anyway"
    assert signal.reason == "timed out after 0.02s"


async def test_a_deadline_on_a_signal_already_set_keeps_the_first_reason() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()
    signal.cancel("by the caller")

    async def thunk() -> str:
        await runtime.sleep(0.1)
        return "ran anyway"

    assert await runtime.deadline(0.01, signal, thunk) == "ran anyway"
    assert signal.reason == "by the caller"


async def test_a_failing_thunk_s_exception_goes_through_unwrapped() -> None:
    runtime = AnyioRuntime()
    signal = CancelSignal()
    failure = ValueError("body broke")

    async def broken() -> None:
        raise failure

    with pytest.raises(ValueError, match="body broke") as caught:
        await runtime.deadline(0.05, signal, broken)
    assert caught.value is failure
    await runtime.sleep(0.15)
    assert not signal.is_cancelled()


async def test_a_raising_watcher_is_reported_and_the_thunk_goes_on() -> None:
    defects: list[str] = []
    runtime = AnyioRuntime(on_defect=lambda error, where: defects.append(f"{where}: {error}"))
    signal = CancelSignal()

    def broken_watcher() -> None:
        raise RuntimeError("watcher bug")

    signal.on_cancel(broken_watcher)

    async def thunk() -> str:
        await anyio.sleep(0.1)
        return "done"

    assert await runtime.deadline(0.01, signal, thunk) == "done"
    assert defects == ["a watcher of a deadline's signal: watcher bug"]


# approve and report -----------------------------------------------------------------------------


async def test_approve_without_a_service_is_unavailable() -> None:
    assert await AnyioRuntime().approve(approval_request(), CancelSignal()) == "unavailable"


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_approve_asks_the_service_and_returns_its_scripted_replies(
    asynchronous: bool,
) -> None:
    script: list[ApprovalReply] = ["allowed-once", "rejected", "allowed-always"]
    asked: list[ApprovalRequest] = []

    def service(ask: ApprovalRequest) -> ApprovalReply:
        asked.append(ask)
        return script[len(asked) - 1]

    async def async_service(ask: ApprovalRequest) -> ApprovalReply:
        await anyio.sleep(0.001)
        return service(ask)

    runtime = AnyioRuntime(approvals=async_service if asynchronous else service)
    signal = CancelSignal()
    assert [
        await runtime.approve(approval_request(f"call-{i}"), signal) for i in range(3)
    ] == script
    assert [ask.call_id for ask in asked] == ["call-0", "call-1", "call-2"]


@pytest.mark.parametrize("with_service", [False, True])
async def test_approve_on_a_cancelled_signal_is_cancelled_without_asking(
    with_service: bool,
) -> None:
    asked: list[ApprovalRequest] = []

    async def service(ask: ApprovalRequest) -> ApprovalReply:
        asked.append(ask)
        return "allowed-once"

    signal = CancelSignal()
    signal.cancel()
    runtime = AnyioRuntime(approvals=service if with_service else None)
    assert await runtime.approve(approval_request(), signal) == "cancelled"
    assert asked == []


@pytest.mark.parametrize("from_thread", [False, True])
async def test_approve_is_cancelled_when_the_signal_is_set_while_waiting(
    from_thread: bool,
) -> None:
    log: list[str] = []
    asking = threading.Event()

    async def human(ask: ApprovalRequest) -> ApprovalReply:
        asking.set()
        try:
            await anyio.sleep(LONG)
        finally:
            log.append("asking stopped")
        return "allowed-once"

    async def cancel_once_asking() -> None:
        while not asking.is_set():
            await anyio.sleep(0.001)
        signal.cancel("gone")

    runtime = AnyioRuntime(approvals=human)
    signal = CancelSignal()
    async with anyio.create_task_group() as group:
        if from_thread:
            cancel_when(signal, asking.is_set, "gone")  # while it waits, however slow the start
        else:
            group.start_soon(cancel_once_asking)
        assert await runtime.approve(approval_request(), signal) == "cancelled"
    assert log == ["asking stopped"]


async def test_an_answer_that_comes_first_wins() -> None:
    async def quick(ask: ApprovalRequest) -> ApprovalReply:
        return "rejected"

    signal = CancelSignal()
    assert await AnyioRuntime(approvals=quick).approve(approval_request(), signal) == "rejected"
    signal.cancel("too late")


def test_report_hands_the_defect_to_on_defect() -> None:
    assert_report_hands_over(lambda on_defect: AnyioRuntime(on_defect=on_defect))


def test_report_logs_by_default(caplog: pytest.LogCaptureFixture) -> None:
    assert_report_logs(AnyioRuntime(), caplog)


# run_anyio and run_anyio_async ------------------------------------------------------------------


def test_run_anyio_runs_of_map_and_bind(anyio_backend: Backend) -> None:
    assert run_anyio(Description.of(41), anyio_backend) == 41
    assert run_anyio(Description.of(41).map(lambda n: n + 1), anyio_backend) == 42
    doubled = Description.of(20).bind(lambda n: Description.of(str(n * 2)))
    assert run_anyio(doubled, anyio_backend) == "40"


def test_run_anyio_builds_an_anyio_runtime_unless_given_one(anyio_backend: Backend) -> None:
    async def which(runtime: Runtime) -> Runtime:
        return runtime

    assert isinstance(run_anyio(Description(which), anyio_backend), AnyioRuntime)
    given = AnyioRuntime()
    assert run_anyio(Description(which), anyio_backend, given) is given


def test_run_anyio_uses_the_chosen_backend(anyio_backend: Backend) -> None:
    import sniffio

    async def library(runtime: Runtime) -> str:
        await runtime.checkpoint()
        return sniffio.current_async_library()

    assert run_anyio(Description(library), anyio_backend) == anyio_backend


def test_bind_sequences_effects_through_the_runtime(anyio_backend: Backend) -> None:
    log: list[str] = []

    def effect(name: str, value: int) -> Description[int]:
        async def program(runtime: Runtime) -> int:
            await runtime.sleep(0.001)
            log.append(name)
            return value

        return Description(program)

    description = effect("first", 1).bind(lambda n: effect("second", n + 1)).map(lambda n: n * 10)
    assert log == []  # building performs nothing
    assert run_anyio(description, anyio_backend) == 20
    assert log == ["first", "second"]


@pytest.mark.parametrize(
    "error", [ValueError("plain"), Cancelled("stopped"), KeyboardInterrupt(), SystemExit(3)]
)
def test_exceptions_from_the_program_propagate_unchanged(
    anyio_backend: Backend, error: BaseException
) -> None:
    async def program(runtime: Runtime) -> None:
        await runtime.checkpoint()
        raise error

    with pytest.raises(type(error)) as caught:
        run_anyio(Description(program), anyio_backend)
    assert caught.value is error


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(3)])
@pytest.mark.parametrize("capability", ["gather", "deadline"])
def test_interrupts_leave_gather_and_deadline_unwrapped(
    anyio_backend: Backend, error: BaseException, capability: str
) -> None:
    async def interrupted() -> None:
        await anyio.sleep(0.01)
        raise error

    async def slow() -> None:
        await anyio.sleep(LONG)

    async def program(runtime: Runtime) -> None:
        if capability == "gather":
            await runtime.gather([interrupted, slow], 2)
        else:
            await runtime.deadline(LONG, CancelSignal(), interrupted)

    with pytest.raises(type(error)) as caught:
        run_anyio(Description(program), anyio_backend)
    assert caught.value is error


async def test_run_anyio_async_runs_inside_the_running_loop() -> None:
    async def on_this_loop(runtime: Runtime) -> float:
        await runtime.sleep(0.001)
        return runtime.now()

    assert await run_anyio_async(Description.of(20).map(lambda n: n + 1)) == 21
    assert await run_anyio_async(Description(on_this_loop)) <= anyio.current_time()


def test_run_anyio_async_from_asyncio_and_trio_directly() -> None:
    description = Description.of(6).map(lambda n: n * 7)
    assert asyncio.run(run_anyio_async(description)) == 42
    assert trio.run(run_anyio_async, description) == 42


# the pipeline, end to end -----------------------------------------------------------------------


class Args(TypedDict):
    text: str


def run_call(
    body: Callable[[Args, ToolRunContext], Any],
    backend: Backend,
    signal: CancelSignal | None = None,
    **extra: Any,
) -> ToolExecutionResult:
    location = Location()
    location.register(
        define_tool(
            name="shout",
            description="d",
            parameters=Args,
            output=Output(str),
            execute=body,
            **extra,
        )
    )
    call = ToolCall("call-1", "shout", {"text": "hi"}, signal or CancelSignal())
    return run_anyio(execute(location.catalog(None), call), backend)


def code_of(result: ToolExecutionResult) -> ErrorCode:
    assert isinstance(result, ToolExecutionFailure), result
    return result.error.code


def test_a_plain_call_succeeds(anyio_backend: Backend) -> None:
    def shout(args: Args, ctx: ToolRunContext) -> str:
        return args["text"].upper()

    assert run_call(shout, anyio_backend) == ToolExecutionSuccess("HI", (TextBlock("HI"),))


def test_a_blocking_body_runs_in_a_worker_thread(anyio_backend: Backend) -> None:
    caller = threading.get_ident()

    def where(args: Args, ctx: ToolRunContext) -> str:
        return "worker" if threading.get_ident() != caller else "loop"

    result = run_call(where, anyio_backend, blocking=True)
    assert result == ToolExecutionSuccess("worker", (TextBlock("worker"),))


def test_an_async_body_may_await_anyio_directly(anyio_backend: Backend) -> None:
    async def nap(args: Args, ctx: ToolRunContext) -> str:
        await anyio.sleep(0.01)
        return args["text"] + "!"

    assert run_call(nap, anyio_backend) == ToolExecutionSuccess("hi!", (TextBlock("hi!"),))


def test_a_timeout_wakes_the_body_and_fails_with_tool_timeout(anyio_backend: Backend) -> None:
    async def slow(args: Args, ctx: ToolRunContext) -> str:
        await ctx.runtime.sleep(30, ctx.signal)
        return "slept"

    result = run_call(slow, anyio_backend, timeout=0.05)
    assert code_of(result) is ErrorCode.TOOL_TIMEOUT


def test_a_caller_cancelling_from_another_thread_mid_body_aborts(anyio_backend: Backend) -> None:
    started = threading.Event()

    async def slow(args: Args, ctx: ToolRunContext) -> str:
        started.set()
        await ctx.runtime.sleep(30, ctx.signal)
        return "slept"

    signal = CancelSignal()
    canceller = cancel_when(signal, started.is_set, "the user pressed stop")  # mid-body
    result = run_call(slow, anyio_backend, signal)
    canceller.join()
    assert started.is_set()
    assert code_of(result) is ErrorCode.ABORTED
    assert isinstance(result, ToolExecutionFailure)
    assert "the user pressed stop" in result.error.message


def test_calls_gathered_by_the_runtime_overlap(anyio_backend: Backend) -> None:
    in_flight: list[str] = []
    peak = 0

    async def nap(args: Args, ctx: ToolRunContext) -> str:
        nonlocal peak
        in_flight.append(args["text"])
        peak = max(peak, len(in_flight))
        while peak < 8:  # each waits for all the others: they overlap, or this hangs
            await ctx.runtime.sleep(0.001, ctx.signal)
        in_flight.remove(args["text"])
        return args["text"]

    location = Location()
    location.register(
        define_tool(name="nap", description="d", parameters=Args, output=Output(str), execute=nap)
    )
    catalog = location.catalog(None)

    def thunk(runtime: Runtime, index: int) -> Callable[[], Awaitable[ToolExecutionResult]]:
        call = ToolCall(f"call-{index}", "nap", {"text": f"t{index}"}, CancelSignal())
        return lambda: execute(catalog, call).program(runtime)

    async def program(runtime: Runtime) -> list[ToolExecutionResult]:
        with anyio.fail_after(HANG):  # only against a hang
            return await runtime.gather([thunk(runtime, i) for i in range(8)], 8)

    results = run_anyio(Description(program), anyio_backend)
    assert [r.value for r in results if isinstance(r, ToolExecutionSuccess)] == [
        f"t{i}" for i in range(8)
    ]
    assert peak == 8  # all eight in flight at once: counted, not timed
