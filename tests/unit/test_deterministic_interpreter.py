"""The deterministic interpreter: virtual time, seeded interleavings, scripted approvals, faults."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import math
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypedDict, TypeVar

import pytest

from tests.support import approval_request
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    CancelSignal,
    Description,
    Runtime,
    deadline_reason,
)
from toolfx.core.tools import (
    Ask,
    ErrorCode,
    Output,
    PreToolDecision,
    TextBlock,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters._foreign import ForeignAwaitError
from toolfx.interpreters.testing import (
    CancelAt,
    Deadlock,
    DeterministicForeignAwaitError,
    DeterministicInterpreter,
    Fault,
    HangAt,
    RaiseAt,
    RaiseInto,
    TraceEvent,
)

T = TypeVar("T")

SEEDS = range(20)


def perform(
    program: Callable[[Runtime], Awaitable[T]],
    interpreter: DeterministicInterpreter | None = None,
) -> T:
    """Run one program that uses the runtime's capabilities directly."""

    async def wrapper(runtime: Runtime) -> T:
        return await program(runtime)

    return (interpreter or DeterministicInterpreter()).run(Description(wrapper))


def events(interpreter: DeterministicInterpreter, kind: str) -> list[TraceEvent]:
    return [event for event in interpreter.trace if event.kind == kind]


# virtual time -----------------------------------------------------------------------------------


def test_a_one_hour_sleep_finishes_at_once_and_now_advances_exactly() -> None:
    async def program(runtime: Runtime) -> tuple[float, float]:
        before = runtime.now()
        await runtime.sleep(3600)
        return before, runtime.now()

    interpreter = DeterministicInterpreter()
    assert perform(program, interpreter) == (0.0, 3600.0)  # an hour of virtual time
    assert [(e.time, e.detail) for e in events(interpreter, "sleep")] == [(0.0, "3600s")]
    assert [e.time for e in events(interpreter, "wake")] == [3600.0]


def test_only_timers_move_the_clock() -> None:
    async def program(runtime: Runtime) -> list[float]:
        seen = [runtime.now()]
        await runtime.checkpoint()
        await runtime.run_blocking(lambda: None)
        seen.append(runtime.now())
        await runtime.sleep(0.25)
        await runtime.sleep(0.5)
        seen.append(runtime.now())
        return seen

    assert perform(program) == [0.0, 0.0, 0.75]


@pytest.mark.parametrize("seconds", [0.0, -5.0, math.nan])
def test_a_sleep_of_no_time_is_a_reschedule_at_the_same_time(seconds: float) -> None:
    async def program(runtime: Runtime) -> float:
        await runtime.sleep(seconds)
        return runtime.now()

    interpreter = DeterministicInterpreter()
    assert perform(program, interpreter) == 0.0
    assert len(events(interpreter, "wake")) == 1


# sleep and signals ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_a_signal_set_by_another_task_wakes_the_sleeper(seed: int) -> None:
    signal = CancelSignal()

    async def sleeper(runtime: Runtime) -> str:
        try:
            await runtime.sleep(100, signal)
        except Cancelled as cancelled:
            return f"{cancelled.reason} at {runtime.now():g}"
        return "slept"

    async def canceller(runtime: Runtime) -> str:
        await runtime.sleep(5)
        signal.cancel("stop")
        return "cancelled"

    async def program(runtime: Runtime) -> list[str]:
        return await runtime.gather([lambda: sleeper(runtime), lambda: canceller(runtime)], 2)

    interpreter = DeterministicInterpreter(seed)
    assert perform(program, interpreter) == ["stop at 5", "cancelled"]
    assert "cancelled: stop" in [e.detail for e in events(interpreter, "wake")]
    assert interpreter.trace[-1].time == 5.0  # the sleeper's timer was dropped


def test_a_signal_already_set_raises_at_once() -> None:
    signal = CancelSignal()
    signal.cancel("early")

    async def program(runtime: Runtime) -> None:
        await runtime.sleep(10, signal)

    interpreter = DeterministicInterpreter()
    with pytest.raises(Cancelled, match="early"):
        perform(program, interpreter)
    assert events(interpreter, "sleep") == []


def test_an_infinite_sleep_waits_for_its_signal() -> None:
    signal = CancelSignal()

    async def forever(runtime: Runtime) -> None:
        await runtime.sleep(math.inf, signal)

    async def program(runtime: Runtime) -> float:
        with pytest.raises(Cancelled):
            await runtime.deadline(7, signal, lambda: forever(runtime))
        return runtime.now()

    assert perform(program) == 7.0


def test_an_infinite_sleep_with_nothing_to_end_it_is_a_deadlock() -> None:
    async def program(runtime: Runtime) -> None:
        await runtime.sleep(1)
        await runtime.sleep(math.inf)

    with pytest.raises(Deadlock, match=r"virtual time 1s") as caught:
        perform(program)
    assert caught.value.time == 1.0
    assert caught.value.hung == ()
    assert caught.value.blocked == ((0, "(main) sleeping until t=infs"),)


# checkpoint and interleavings -------------------------------------------------------------------


def interleaving(
    seed: int, tasks: int = 4, rounds: int = 3
) -> tuple[list[int], DeterministicInterpreter]:
    """Which task appended when, for tasks that append their number after each checkpoint."""
    order: list[int] = []

    async def worker(runtime: Runtime, number: int) -> int:
        for _ in range(rounds):
            await runtime.checkpoint()
            order.append(number)
        return number

    async def program(runtime: Runtime) -> list[int]:
        thunks = [lambda n=n: worker(runtime, n) for n in range(tasks)]
        return await runtime.gather(thunks, tasks)

    interpreter = DeterministicInterpreter(seed)
    assert perform(program, interpreter) == list(range(tasks))
    assert sorted(order) == sorted(list(range(tasks)) * rounds)
    return order, interpreter


def test_checkpoints_are_reschedule_points_in_the_trace() -> None:
    _, interpreter = interleaving(0)
    checkpoints = events(interpreter, "checkpoint")
    assert len(checkpoints) == 12
    assert {e.task for e in checkpoints} == {1, 2, 3, 4}


@pytest.mark.parametrize("seed", SEEDS)
def test_the_same_seed_gives_the_same_trace(seed: int) -> None:
    first_order, first = interleaving(seed)
    second_order, second = interleaving(seed)
    assert first_order == second_order
    assert first.trace == second.trace
    assert [e.step for e in first.trace] == sorted(e.step for e in first.trace)


def test_different_seeds_give_different_interleavings() -> None:
    orders = {tuple(interleaving(seed)[0]) for seed in SEEDS}
    assert len(orders) >= 2


def test_a_reused_interpreter_starts_afresh() -> None:
    _, interpreter = interleaving(3)
    trace = interpreter.trace

    async def program(runtime: Runtime) -> None:
        await runtime.gather([runtime.checkpoint for _ in range(4)], 4)

    perform(program, interpreter)
    assert interpreter.trace != trace
    assert interpreter.trace[0] == TraceEvent(0, 0.0, 0, "spawn", "main")


def test_trace_events_are_frozen_and_readable() -> None:
    event = TraceEvent(3, 2.5, 1, "sleep", "30s")
    assert str(event) == "#3 t=2.5 task 1: sleep 30s"
    assert (
        str(TraceEvent(4, 0.0, None, "fault", "CancelAt: x"))
        == "#4 t=0 scheduler: fault CancelAt: x"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.step = 4  # type: ignore[misc]


# gather -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_gather_gives_results_in_order_whatever_finishes_first(seed: int) -> None:
    finished: list[int] = []

    async def worker(runtime: Runtime, number: int) -> str:
        await runtime.sleep(4 - number)
        finished.append(number)
        return f"r{number}"

    async def program(runtime: Runtime) -> list[str]:
        thunks = [lambda n=n: worker(runtime, n) for n in range(4)]
        return await runtime.gather(thunks, 4)

    assert perform(program, DeterministicInterpreter(seed)) == ["r0", "r1", "r2", "r3"]
    assert finished == [3, 2, 1, 0]


@pytest.mark.parametrize("limit", [1, 2, 3, 8])
@pytest.mark.parametrize("seed", range(5))
def test_gather_never_runs_more_than_limit_at_once(limit: int, seed: int) -> None:
    active = 0
    most = 0

    async def worker(runtime: Runtime, number: int) -> int:
        nonlocal active, most
        active += 1
        most = max(most, active)
        await runtime.sleep(1 + number % 3)  # every child started at t=0 is active at once
        await runtime.checkpoint()
        active -= 1
        return number

    async def program(runtime: Runtime) -> list[int]:
        thunks = [lambda n=n: worker(runtime, n) for n in range(7)]
        return await runtime.gather(thunks, limit)

    assert perform(program, DeterministicInterpreter(seed)) == list(range(7))
    assert most == min(limit, 7)
    assert active == 0


def test_gather_with_one_slot_runs_one_after_another() -> None:
    async def worker(runtime: Runtime) -> float:
        await runtime.sleep(1)
        return runtime.now()

    async def program(runtime: Runtime) -> list[float]:
        return await runtime.gather([lambda: worker(runtime) for _ in range(3)], 1)

    assert perform(program) == [1.0, 2.0, 3.0]


def test_gather_of_nothing_and_a_bad_limit() -> None:
    async def empty(runtime: Runtime) -> list[int]:
        return await runtime.gather([], 3)

    async def bad(runtime: Runtime) -> list[None]:
        return await runtime.gather([runtime.checkpoint], 0)

    assert perform(empty) == []
    with pytest.raises(ValueError, match="at least 1"):
        perform(bad)


@pytest.mark.parametrize("seed", range(5))
def test_the_first_failure_propagates_after_the_running_children_finish(seed: int) -> None:
    started: list[int] = []
    finished: list[int] = []
    first = ValueError("first")

    async def worker(runtime: Runtime, number: int) -> int:
        started.append(number)
        await runtime.sleep([1, 5, 2, 1][number])
        if number == 0:
            raise first
        if number == 2:
            raise KeyError("later")
        finished.append(number)
        return number

    async def program(runtime: Runtime) -> float:
        thunks = [lambda n=n: worker(runtime, n) for n in range(4)]
        with pytest.raises(ValueError, match="first") as caught:
            await runtime.gather(thunks, 3)
        assert caught.value is first
        return runtime.now()

    interpreter = DeterministicInterpreter(seed)
    assert perform(program, interpreter) == 5.0  # the sibling that sleeps 5 was awaited
    assert sorted(started) == [0, 1, 2]  # the fourth thunk was abandoned: never started
    assert finished == [1]
    assert len(events(interpreter, "failed")) == 2


def test_gather_children_may_gather_too() -> None:
    async def leaf(runtime: Runtime, number: int) -> int:
        await runtime.checkpoint()
        return number

    async def branch(runtime: Runtime, base: int) -> list[int]:
        thunks = [lambda n=n: leaf(runtime, base + n) for n in range(2)]
        return await runtime.gather(thunks, 2)

    async def program(runtime: Runtime) -> list[list[int]]:
        return await runtime.gather([lambda: branch(runtime, 0), lambda: branch(runtime, 10)], 2)

    for seed in range(5):
        assert perform(program, DeterministicInterpreter(seed)) == [[0, 1], [10, 11]]


# deadline ---------------------------------------------------------------------------------------


def test_a_deadline_sets_the_signal_at_exactly_its_virtual_time() -> None:
    signal = CancelSignal()

    async def thunk(runtime: Runtime) -> tuple[str, float]:
        try:
            await runtime.sleep(30, signal)
        except Cancelled as cancelled:
            return cancelled.reason, runtime.now()
        return "slept", runtime.now()

    async def program(runtime: Runtime) -> tuple[str, float]:
        return await runtime.deadline(2.5, signal, lambda: thunk(runtime))

    interpreter = DeterministicInterpreter()
    assert perform(program, interpreter) == (deadline_reason(2.5), 2.5)
    assert signal.reason == deadline_reason(2.5)
    fired = [e for e in events(interpreter, "deadline") if e.detail.startswith("fired")]
    assert [(e.time, e.task) for e in fired] == [(2.5, 0)]


def test_a_thunk_that_finishes_in_time_leaves_the_signal_and_the_clock_alone() -> None:
    signal = CancelSignal()

    async def program(runtime: Runtime) -> list[float]:
        await runtime.deadline(2.5, signal, lambda: runtime.sleep(1, signal))
        seen = [runtime.now()]
        await runtime.sleep(10)
        seen.append(runtime.now())
        return seen

    interpreter = DeterministicInterpreter()
    assert perform(program, interpreter) == [1.0, 11.0]
    assert not signal.is_cancelled()
    assert not any(e.detail.startswith("fired") for e in events(interpreter, "deadline"))


def test_a_deadline_still_waits_for_a_thunk_that_ignores_the_signal() -> None:
    signal = CancelSignal()

    async def stubborn(runtime: Runtime) -> float:
        await runtime.sleep(10)
        return runtime.now()

    async def program(runtime: Runtime) -> float:
        return await runtime.deadline(1, signal, lambda: stubborn(runtime))

    assert perform(program) == 10.0
    assert signal.reason == deadline_reason(1)


def test_a_raising_watcher_of_a_deadline_s_signal_is_reported_and_the_run_goes_on() -> None:
    signal = CancelSignal()
    broken = RuntimeError("watcher broke")

    def watcher() -> None:
        raise broken

    signal.on_cancel(watcher)

    async def program(runtime: Runtime) -> float:
        await runtime.deadline(1, signal, lambda: runtime.sleep(3))
        return runtime.now()

    interpreter = DeterministicInterpreter()
    assert perform(program, interpreter) == 3.0
    assert interpreter.reported == ((broken, "a watcher of a deadline's signal"),)


def test_a_deadline_lets_the_thunks_exception_through() -> None:
    signal = CancelSignal()

    async def broken() -> None:
        raise OSError("disk gone")

    async def program(runtime: Runtime) -> float:
        with pytest.raises(OSError, match="disk gone"):
            await runtime.deadline(1, signal, broken)
        await runtime.sleep(5)
        return runtime.now()

    assert perform(program) == 5.0
    assert not signal.is_cancelled()


# run_blocking -----------------------------------------------------------------------------------


def test_run_blocking_calls_inline_and_takes_no_virtual_time() -> None:
    async def program(runtime: Runtime) -> tuple[int, float]:
        return await runtime.run_blocking(threading.get_ident), runtime.now()

    assert perform(program) == (threading.get_ident(), 0.0)


def test_run_blocking_lets_the_function_s_exception_through() -> None:
    failure = OSError("disk gone")

    def broken() -> int:
        raise failure

    async def program(runtime: Runtime) -> int:
        return await runtime.run_blocking(broken)

    with pytest.raises(OSError, match="disk gone") as caught:
        perform(program)
    assert caught.value is failure


# approve ----------------------------------------------------------------------------------------


def ask_three(
    signal: CancelSignal | None = None,
) -> Callable[[Runtime], Awaitable[list[ApprovalReply]]]:
    async def program(runtime: Runtime) -> list[ApprovalReply]:
        chosen = signal or CancelSignal()
        return [
            await runtime.approve(approval_request(f"c{n}", agent="agent"), chosen)
            for n in range(3)
        ]

    return program


def test_scripted_replies_come_in_order_then_unavailable() -> None:
    interpreter = DeterministicInterpreter(approvals=["allowed-once", "rejected"])
    assert perform(ask_three(), interpreter) == ["allowed-once", "rejected", "unavailable"]
    assert [e.detail for e in events(interpreter, "approve")] == [
        "bash for agent (c0) -> allowed-once",
        "bash for agent (c1) -> rejected",
        "bash for agent (c2) -> unavailable",
    ]
    # a second run starts the script again
    assert perform(ask_three(), interpreter) == ["allowed-once", "rejected", "unavailable"]


def test_a_callback_answers_each_request() -> None:
    asked: list[str] = []

    def answer(asking: ApprovalRequest) -> ApprovalReply:
        asked.append(asking.call_id)
        return "allowed-always"

    interpreter = DeterministicInterpreter(approvals=answer)
    assert perform(ask_three(), interpreter) == ["allowed-always"] * 3
    assert asked == ["c0", "c1", "c2"]


def test_without_approvals_the_service_is_unavailable() -> None:
    assert perform(ask_three()) == ["unavailable"] * 3


def test_a_set_signal_answers_cancelled_without_using_the_script() -> None:
    signal = CancelSignal()
    signal.cancel()
    interpreter = DeterministicInterpreter(approvals=["allowed-once"])
    assert perform(ask_three(signal), interpreter) == ["cancelled"] * 3


def test_a_signal_set_while_waiting_for_the_answer_gives_cancelled() -> None:
    signal = CancelSignal()
    interpreter = DeterministicInterpreter(
        approvals=["allowed-once"] * 3, faults=[CancelAt(2, signal, "user left")]
    )
    assert perform(ask_three(signal), interpreter) == ["cancelled"] * 3
    assert events(interpreter, "fault")[0] == TraceEvent(
        2, 0.0, None, "fault", "CancelAt: user left"
    )


def test_approvals_must_be_a_sequence_of_replies() -> None:
    with pytest.raises(TypeError, match="sequence"):
        DeterministicInterpreter(approvals="allowed-once")  # type: ignore[arg-type]


# report -----------------------------------------------------------------------------------------


def test_report_records_in_the_trace_and_in_reported() -> None:
    failure = ValueError("bad observer")

    async def program(runtime: Runtime) -> None:
        runtime.report(failure, "result observer")

    interpreter = DeterministicInterpreter()
    perform(program, interpreter)
    assert interpreter.reported == ((failure, "result observer"),)
    assert [e.detail for e in events(interpreter, "report")] == [
        "result observer: ValueError: bad observer"
    ]


# outcomes, interrupts, foreign awaits -----------------------------------------------------------


@pytest.mark.parametrize(
    "error", [ValueError("plain"), Cancelled("stopped"), KeyboardInterrupt(), SystemExit(3)]
)
def test_exceptions_from_the_program_propagate_unchanged(error: BaseException) -> None:
    async def program(runtime: Runtime) -> None:
        await runtime.checkpoint()
        raise error

    interpreter = DeterministicInterpreter()
    with pytest.raises(type(error)) as caught:
        perform(program, interpreter)
    assert caught.value is error
    assert interpreter.trace[-1].kind == "failed"


def test_an_interrupt_in_a_child_ends_the_run_and_closes_the_others() -> None:
    closed: list[str] = []

    async def sibling(runtime: Runtime) -> None:
        try:
            await runtime.sleep(100)
        finally:
            closed.append("sibling")

    async def interrupted(runtime: Runtime) -> None:
        await runtime.sleep(1)
        raise KeyboardInterrupt

    async def program(runtime: Runtime) -> None:
        try:
            await runtime.gather([lambda: sibling(runtime), lambda: interrupted(runtime)], 2)
        finally:
            closed.append("main")

    interpreter = DeterministicInterpreter()
    with pytest.raises(KeyboardInterrupt):
        perform(program, interpreter)
    assert closed == ["sibling", "main"]
    assert [e.task for e in events(interpreter, "abandoned")] == [1, 0]


def test_awaiting_asyncio_is_a_foreign_await_error_naming_this_interpreter() -> None:
    cleaned_up: list[str] = []

    async def program(runtime: Runtime) -> None:
        try:
            await asyncio.sleep(0)
        finally:
            cleaned_up.append("finally")

    with pytest.raises(DeterministicForeignAwaitError) as caught:
        perform(program)
    message = str(caught.value)
    assert "deterministic interpreter" in message
    assert "asyncio.tasks.sleep()" in message
    assert isinstance(caught.value, ForeignAwaitError)
    assert cleaned_up == ["finally"]
    del caught
    gc.collect()  # a "never awaited" warning here would fail the test (filterwarnings=error)


def test_a_foreign_future_in_a_child_task_closes_every_task() -> None:
    loop = asyncio.new_event_loop()
    closed: list[str] = []
    try:
        future: asyncio.Future[int] = loop.create_future()

        async def foreign() -> int:
            try:
                return await future
            finally:
                closed.append("child")

        async def program(runtime: Runtime) -> list[int]:
            try:
                return await runtime.gather([foreign, foreign], 1)
            finally:
                closed.append("main")

        with pytest.raises(DeterministicForeignAwaitError, match="Future pending"):
            perform(program)
        assert closed == ["child", "main"]
    finally:
        loop.close()


# faults -----------------------------------------------------------------------------------------


def test_fault_steps_are_checked() -> None:
    with pytest.raises(ValueError, match="at most one"):
        DeterministicInterpreter(faults=[RaiseAt(3, ValueError()), HangAt(3)])
    with pytest.raises(ValueError, match="from 1"):
        DeterministicInterpreter(faults=[HangAt(0)])


def test_raise_at_throws_into_the_task_resumed_at_that_step() -> None:
    injected = ConnectionError("link down")

    async def program(runtime: Runtime) -> list[str]:
        seen: list[str] = []
        for _ in range(3):
            try:
                await runtime.checkpoint()
                seen.append("ok")
            except ConnectionError as error:
                seen.append(str(error))
        return seen

    interpreter = DeterministicInterpreter(faults=[RaiseAt(3, injected)])
    assert perform(program, interpreter) == ["ok", "link down", "ok"]
    assert events(interpreter, "fault") == [
        TraceEvent(3, 0.0, 0, "fault", "RaiseAt: ConnectionError: link down")
    ]


def test_an_uncaught_injected_error_ends_the_run() -> None:
    injected = ConnectionError("link down")

    async def program(runtime: Runtime) -> None:
        await runtime.sleep(1)

    with pytest.raises(ConnectionError) as caught:
        perform(program, DeterministicInterpreter(faults=[RaiseAt(2, injected)]))
    assert caught.value is injected


def test_an_error_thrown_into_a_waiting_gather_lets_its_children_finish_then_raises() -> None:
    closed: list[int] = []
    started: list[int] = []

    async def worker(runtime: Runtime, seconds: float) -> None:
        started.append(int(seconds))
        try:
            await runtime.sleep(seconds)
        finally:
            closed.append(int(seconds))

    async def program(runtime: Runtime) -> float:
        thunks = [
            lambda: worker(runtime, 1),
            lambda: worker(runtime, 5),
            lambda: worker(runtime, 9),
        ]
        with pytest.raises(ConnectionError, match="lost"):
            await runtime.gather(thunks, 2)
        return runtime.now()

    # 1: main spawns two and waits; 2, 3: the workers sleep; 4: one wakes at t=1 and finishes;
    # 5: main resumes from its wait, and gets the error instead: it starts no third worker
    interpreter = DeterministicInterpreter(faults=[RaiseAt(5, ConnectionError("lost"))])
    assert perform(program, interpreter) == 5.0
    assert (sorted(started), closed) == ([1, 5], [1, 5])
    assert events(interpreter, "abandoned") == []


def test_raise_into_wakes_the_main_task_from_its_wait_in_a_gather() -> None:
    async def worker(runtime: Runtime, seconds: float) -> float:
        await runtime.sleep(seconds)
        return runtime.now()

    async def program(runtime: Runtime) -> tuple[str, float]:
        thunks = [lambda: worker(runtime, 1), lambda: worker(runtime, 5)]
        try:
            await runtime.gather(thunks, 2)
        except ConnectionError as error:
            return str(error), runtime.now()
        return "gathered", runtime.now()

    # 1: main spawns both and waits; 2: a worker sleeps; at 3, before the pick, main is woken
    interpreter = DeterministicInterpreter(faults=[RaiseInto(3, ConnectionError("lost"))])
    assert perform(program, interpreter) == ("lost", 5.0)  # the children still finished
    assert events(interpreter, "fault") == [
        TraceEvent(3, 0.0, 0, "fault", "RaiseInto: ConnectionError: lost")
    ]


def test_raise_into_a_runnable_task_replaces_what_it_resumes_with() -> None:
    async def program(runtime: Runtime) -> list[str]:
        seen: list[str] = []
        for _ in range(3):
            try:
                await runtime.checkpoint()
                seen.append("ok")
            except ConnectionError as error:
                seen.append(str(error))
        return seen

    interpreter = DeterministicInterpreter(faults=[RaiseInto(3, ConnectionError("link down"))])
    assert perform(program, interpreter) == ["ok", "link down", "ok"]


def test_raise_into_a_task_that_is_not_there_is_traced_and_changes_nothing() -> None:
    async def program(runtime: Runtime) -> str:
        await runtime.gather([runtime.checkpoint], 1)
        await runtime.checkpoint()
        await runtime.checkpoint()
        return "done"

    faults = [
        RaiseInto(1, ValueError("fresh")),
        RaiseInto(1, ValueError("early"), task=1),
        RaiseInto(5, ValueError("late"), task=1),
    ]
    interpreter = DeterministicInterpreter(faults=faults)
    assert perform(program, interpreter) == "done"
    assert [e.detail for e in events(interpreter, "fault")] == [
        "RaiseInto: task 0 is not started yet",  # not at a suspension point yet
        "RaiseInto: task 1 is not running",  # not spawned yet
        "RaiseInto: task 1 is not running",  # finished
    ]


def test_an_interrupt_raised_into_the_main_task_ends_the_run_and_closes_the_children() -> None:
    closed: list[str] = []

    async def worker(runtime: Runtime) -> None:
        try:
            await runtime.sleep(10)
        finally:
            closed.append("worker")

    async def program(runtime: Runtime) -> None:
        await runtime.gather([lambda: worker(runtime)], 1)

    with pytest.raises(KeyboardInterrupt):
        perform(program, DeterministicInterpreter(faults=[RaiseInto(3, KeyboardInterrupt())]))
    assert closed == ["worker"]


def test_a_hung_sleeper_is_freed_by_a_deadline() -> None:
    signal = CancelSignal()

    async def thunk(runtime: Runtime) -> str:
        try:
            await runtime.sleep(1, signal)  # wakes at t=1, but step 2 never resumes it
        except Cancelled as cancelled:
            return cancelled.reason
        return "slept"

    async def program(runtime: Runtime) -> tuple[str, float]:
        return await runtime.deadline(3, signal, lambda: thunk(runtime)), runtime.now()

    interpreter = DeterministicInterpreter(faults=[HangAt(2)])
    assert perform(program, interpreter) == (deadline_reason(3), 3.0)
    assert events(interpreter, "fault") == [TraceEvent(2, 1.0, 0, "fault", "HangAt: never resumed")]


def test_a_hung_task_nothing_can_free_is_a_deadlock_naming_it() -> None:
    async def worker(runtime: Runtime) -> None:
        await runtime.sleep(1)
        await runtime.checkpoint()

    async def program(runtime: Runtime) -> list[None]:
        return await runtime.gather([lambda: worker(runtime)], 1)

    # step 1: main spawns; 2: the worker sleeps; 3: it wakes at t=1 and checkpoints; 4: hangs
    with pytest.raises(Deadlock) as caught:
        perform(program, DeterministicInterpreter(faults=[HangAt(4)]))
    error = caught.value
    assert (error.time, error.step, error.hung) == (1.0, 4, (1,))
    assert error.blocked == (
        (0, "(main) waiting for task 1"),
        (1, "(gather[0] of task 0) hung by HangAt(4)"),
    )
    assert "virtual time 1s" in str(error)
    assert "Hung tasks: task 1" in str(error)


@pytest.mark.parametrize("seed", range(5))
def test_cancel_at_sets_the_signal_at_that_step(seed: int) -> None:
    signal = CancelSignal()

    async def sleeper(runtime: Runtime) -> str:
        try:
            await runtime.sleep(100, signal)
        except Cancelled as cancelled:
            return f"{cancelled.reason} at {runtime.now():g}"
        return "slept"

    async def ticker(runtime: Runtime) -> str:
        for _ in range(4):
            await runtime.checkpoint()
        return "ticked"

    async def program(runtime: Runtime) -> list[str]:
        return await runtime.gather([lambda: sleeper(runtime), lambda: ticker(runtime)], 2)

    faults: list[Fault] = [CancelAt(3, signal, "operator")]
    interpreter = DeterministicInterpreter(seed, faults=faults)
    assert perform(program, interpreter) == ["operator at 0", "ticked"]
    assert events(interpreter, "fault")[0].step == 3


def test_a_raising_watcher_of_a_cancel_at_signal_is_reported() -> None:
    signal = CancelSignal()
    broken = RuntimeError("watcher broke")

    def watcher() -> None:
        raise broken

    signal.on_cancel(watcher)

    async def program(runtime: Runtime) -> bool:
        return signal.is_cancelled()

    interpreter = DeterministicInterpreter(faults=[CancelAt(1, signal)])
    assert perform(program, interpreter) is True
    assert interpreter.reported == ((broken, "a watcher of the signal of CancelAt(1)"),)


# the pipeline, end to end -----------------------------------------------------------------------


class Args(TypedDict):
    text: str


def shout(args: Args, ctx: ToolRunContext) -> str:
    return args["text"].upper()


def call(signal: CancelSignal | None = None, call_id: str = "call-1") -> ToolCall:
    return ToolCall(call_id, "shout", {"text": "hi"}, signal or CancelSignal())


def timed(
    description: Description[ToolExecutionResult],
) -> Description[tuple[ToolExecutionResult, float]]:
    """The call's result and the virtual time it arrived at."""

    async def program(runtime: Runtime) -> tuple[ToolExecutionResult, float]:
        return await description.program(runtime), runtime.now()

    return Description(program)


def code_of(result: ToolExecutionResult) -> ErrorCode:
    assert isinstance(result, ToolExecutionFailure), result
    return result.error.code


def test_a_plain_call_through_the_pipeline() -> None:
    location = Location()
    location.register(
        define_tool(
            name="shout", description="d", parameters=Args, output=Output(str), execute=shout
        )
    )
    interpreter = DeterministicInterpreter()
    result = interpreter.run(execute(location.catalog(), call()))
    assert result == ToolExecutionSuccess("HI", (TextBlock("HI"),))
    assert [e.kind for e in interpreter.trace] == ["spawn", "done"]


def sleepy_location(timeout: float) -> Location:
    async def slow(args: Args, ctx: ToolRunContext) -> str:
        await ctx.runtime.sleep(30, ctx.signal)
        return "slept"

    location = Location()
    location.register(
        define_tool(
            name="shout",
            description="d",
            parameters=Args,
            output=Output(str),
            execute=slow,
            timeout=timeout,
        )
    )
    return location


def test_a_tool_timeout_is_tool_timeout_at_exactly_its_virtual_time() -> None:
    location = sleepy_location(2)
    interpreter = DeterministicInterpreter()
    result, arrived = interpreter.run(timed(execute(location.catalog(), call())))
    assert code_of(result) is ErrorCode.TOOL_TIMEOUT
    assert arrived == 2.0
    assert [str(e) for e in interpreter.trace] == [
        "#0 t=0 task 0: spawn main",
        "#1 t=0 task 0: deadline 2s, until t=2s",
        "#1 t=0 task 0: sleep 30s",
        "#1 t=2 task 0: deadline fired: timed out after 2s",
        "#1 t=2 task 0: wake cancelled: timed out after 2s",
        "#2 t=2 task 0: done",
    ]


def test_a_hung_body_is_freed_by_the_tool_timeout() -> None:
    async def stuck(args: Args, ctx: ToolRunContext) -> str:
        await ctx.runtime.sleep(1, ctx.signal)
        return "woke"

    location = Location()
    location.register(
        define_tool(
            name="shout",
            description="d",
            parameters=Args,
            output=Output(str),
            execute=stuck,
            timeout=5,
        )
    )
    interpreter = DeterministicInterpreter(faults=[HangAt(2)])
    result, arrived = interpreter.run(timed(execute(location.catalog(), call())))
    assert code_of(result) is ErrorCode.TOOL_TIMEOUT
    assert arrived == 5.0
    assert [(e.step, e.time) for e in events(interpreter, "fault")] == [(2, 1.0)]


def test_cancel_at_mid_body_is_aborted() -> None:
    signal = CancelSignal()

    async def careful(args: Args, ctx: ToolRunContext) -> str:
        await ctx.runtime.checkpoint()
        await ctx.runtime.sleep(10, ctx.signal)
        return "done"

    location = Location()
    location.register(
        define_tool(
            name="shout", description="d", parameters=Args, output=Output(str), execute=careful
        )
    )
    interpreter = DeterministicInterpreter(faults=[CancelAt(2, signal, "user pressed stop")])
    result = interpreter.run(execute(location.catalog(), call(signal)))
    assert code_of(result) is ErrorCode.ABORTED
    assert isinstance(result, ToolExecutionFailure)
    assert "user pressed stop" in result.error.message


def test_scripted_approvals_answer_an_ask_in_an_agent_scope() -> None:
    location = Location()
    location.register(
        define_tool(
            name="shout", description="d", parameters=Args, output=Output(str), execute=shout
        )
    )
    location.add_scope("agent")

    async def ask(execution: ToolExecution, next_: Any) -> PreToolDecision:
        return Ask("shouting is loud")

    location.on_pre_execute(ask, "agent")
    catalog = location.catalog("agent")

    async def two_calls(runtime: Runtime) -> list[ToolExecutionResult]:
        first = await execute(catalog, call(call_id="a")).program(runtime)
        second = await execute(catalog, call(call_id="b")).program(runtime)
        return [first, second]

    interpreter = DeterministicInterpreter(approvals=["allowed-once", "rejected"])
    first, second = interpreter.run(Description(two_calls))
    assert first == ToolExecutionSuccess("HI", (TextBlock("HI"),))
    assert code_of(second) is ErrorCode.DENIED
    assert [e.detail for e in events(interpreter, "approve")] == [
        "shout for agent (a) -> allowed-once",
        "shout for agent (b) -> rejected",
    ]
    # the global scope has no listener: no approval asked there
    assert interpreter.run(execute(location.catalog(), call())) == first
    assert events(interpreter, "approve") == []
