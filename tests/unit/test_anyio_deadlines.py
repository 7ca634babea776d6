"""One timer per asyncio loop for every deadline: each fires once, at its time, unless cancelled;
an earlier deadline re-arms the timer; cancelled ones are dropped. Bounded by counts, with
short virtual delays only as a safety net."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from toolfx.interpreters.anyio._deadlines import LoopDeadlines, deadlines_of


async def _until(check: Callable[[], bool]) -> None:
    for _ in range(1_000):
        if check():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("never happened")


def test_deadlines_fire_in_order_once_unless_cancelled() -> None:
    async def main() -> list[str]:
        deadlines = LoopDeadlines(asyncio.get_running_loop())
        fired: list[str] = []
        late = deadlines.add(0.05, lambda: fired.append("late"))
        deadlines.add(0.02, lambda: fired.append("early"))  # earlier: re-arms the timer
        cancelled = deadlines.add(0.01, lambda: fired.append("cancelled"))
        cancelled.cancel()
        cancelled.cancel()  # twice is once
        await _until(lambda: len(fired) == 2)
        late.cancel()  # after it fired: nothing
        assert not late.pending
        return fired

    assert asyncio.run(main()) == ["early", "late"]


def test_done_deadlines_are_dropped_when_they_are_most_of_the_heap() -> None:
    async def main() -> int:
        deadlines = LoopDeadlines(asyncio.get_running_loop())
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
