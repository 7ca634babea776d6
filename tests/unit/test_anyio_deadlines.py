"""One timer per loop for every deadline (asyncio's `call_at`, a service task per trio run): each
fires once, at its time, unless cancelled; an earlier deadline re-arms the timer; cancelled ones
are dropped; a deadline costs no task group and no task. Bounded by counts, with short delays
only as a safety net."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from typing import Any, Literal

import anyio
import anyio.abc
import anyio.lowlevel
import pytest
import trio
import trio.testing

from tests.support import SAFETY_NET
from toolfx.core.runtime import Cancelled, CancelSignal, Description, Runtime
from toolfx.interpreters.anyio import run_anyio
from toolfx.interpreters.anyio._deadlines import AsyncioTimer, LoopDeadlines, deadlines_of
from toolfx.interpreters.anyio._trio import trio_deadlines


def test_deadlines_fire_in_order_once_unless_cancelled() -> None:
    async def main() -> list[str]:
        deadlines = LoopDeadlines(AsyncioTimer(asyncio.get_running_loop()))
        fired: list[str] = []
        last = asyncio.Event()

        def fire_late() -> None:
            fired.append("late")
            last.set()

        late = deadlines.add(0.05, fire_late)
        deadlines.add(0.02, lambda: fired.append("early"))  # earlier: re-arms the timer
        cancelled = deadlines.add(0.01, lambda: fired.append("cancelled"))
        cancelled.cancel()
        cancelled.cancel()  # twice is once
        async with asyncio.timeout(SAFETY_NET):  # only against a hang
            await last.wait()
        late.cancel()  # after it fired: nothing
        assert not late.pending
        return fired

    assert asyncio.run(main()) == ["early", "late"]


def test_done_deadlines_are_dropped_when_they_are_most_of_the_heap() -> None:
    async def main() -> int:
        deadlines = LoopDeadlines(AsyncioTimer(asyncio.get_running_loop()))
        for _ in range(3_000):
            deadlines.add(60, lambda: None).cancel()
        return len(deadlines)

    assert asyncio.run(main()) < 1_100


def test_each_loop_has_its_own_deadlines() -> None:
    async def main() -> LoopDeadlines:
        loop = asyncio.get_running_loop()
        assert deadlines_of(loop) is deadlines_of(loop)
        return deadlines_of(loop)

    assert asyncio.run(main()) is not asyncio.run(main())


def test_a_trio_run_fires_its_deadlines_in_order_once_unless_cancelled() -> None:
    async def main() -> list[str]:
        deadlines = trio_deadlines()
        assert trio_deadlines() is deadlines  # one per run
        fired: list[str] = []
        late = deadlines.add(0.05, lambda: fired.append("late"))
        deadlines.add(0.02, lambda: fired.append("early"))  # earlier: moves the scope's deadline
        deadlines.add(0.01, lambda: fired.append("cancelled")).cancel()
        await trio.sleep(1)  # virtual time: past every deadline
        assert fired == ["early", "late"]
        assert not late.pending
        deadlines.add(0.01, lambda: fired.append("again"))  # armed anew after firing
        await trio.sleep(1)
        return fired

    # the clock jumps whenever every task waits: no real time passes, however loaded the machine
    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) == [
        "early",
        "late",
        "again",
    ]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_deadline_starts_no_task_and_no_task_group(
    backend: Literal["asyncio", "trio"], monkeypatch: pytest.MonkeyPatch
) -> None:
    entered: list[str] = []
    groups, nurseries = anyio.create_task_group, trio.open_nursery

    def group() -> anyio.abc.TaskGroup:
        entered.append("task group")
        return groups()

    def nursery(**options: Any) -> Any:
        entered.append("nursery")
        return nurseries(**options)

    monkeypatch.setattr(anyio, "create_task_group", group)
    monkeypatch.setattr(trio, "open_nursery", nursery)

    async def until_set(runtime: Runtime, signal: CancelSignal) -> None:
        """Wait for the deadline to set `signal` (SAFETY_NET only guards against a hang)."""
        with contextlib.suppress(Cancelled):
            await runtime.sleep(SAFETY_NET, signal)

    async def program(runtime: Runtime) -> list[str]:
        outcomes = []
        for _ in range(20):
            signal = CancelSignal()
            await runtime.deadline(0.001, signal, functools.partial(until_set, runtime, signal))
            outcomes.append(signal.reason or "live")
            await runtime.deadline(60, CancelSignal(), anyio.lowlevel.checkpoint)
        return outcomes

    reasons = run_anyio(Description(program), backend)
    assert reasons == ["timed out after 0.001s"] * 20
    assert entered == []
