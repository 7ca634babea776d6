"""A parallel run with room for every call starts each call as its task is made (anyio-asyncio):
what a call's start sets in its context stays its own, and a call whose body has not run a line
when the caller cancels is ABORTED_BEFORE_DISPATCH, its body never run, as when each call's task
started it. Counted, never timed: the bodies note what they see and never wait on a clock.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Coroutine
from typing import Any, TypedDict

from toolfx.core.pipeline import ToolCall, execute_batch
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    ErrorCode,
    Output,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.anyio import run_anyio

COUNT = 4
"""Calls in the run."""

MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="the caller's")


class Args(TypedDict):
    n: int


def location(body: Any) -> Location:
    """One parallel-safe tool, `t`, whose body is `body`."""
    place = Location()
    place.register(
        define_tool(
            name="t",
            description="t",
            parameters=Args,
            output=Output(str),
            execute=body,
            is_concurrency_safe=True,
        )
    )
    return place


def run(place: Location, signal: CancelSignal) -> tuple[ToolExecutionResult, ...]:
    calls = [ToolCall(f"c{n}", "t", {"n": n}, signal) for n in range(COUNT)]
    return run_anyio(execute_batch(place.catalog(), calls, limit=None)).results


def code_of(result: ToolExecutionResult) -> ErrorCode | None:
    return result.error.code if isinstance(result, ToolExecutionFailure) else None


def test_what_a_call_sets_in_its_context_reaches_neither_its_siblings_nor_the_caller() -> None:
    def mark(args: Args, ctx: ToolRunContext) -> str:  # runs as the call starts: no coroutine
        seen = MARK.get()
        MARK.set(f"call {args['n']}'s")
        return seen

    results = run(location(mark), CancelSignal())
    assert [getattr(result, "value", result) for result in results] == ["the caller's"] * COUNT
    assert MARK.get() == "the caller's"


def test_a_call_cancelled_before_its_body_ran_a_line_is_aborted_before_dispatch() -> None:
    ran: list[int] = []
    bodies: list[Coroutine[Any, Any, str]] = []
    signal = CancelSignal()

    async def body(n: int) -> str:
        ran.append(n)
        if n == 0:  # the first call cancels the turn before its siblings' bodies ran a line
            signal.cancel("enough")
        return "done"

    def started(args: Args, ctx: ToolRunContext) -> Coroutine[Any, Any, str]:
        bodies.append(body(args["n"]))
        return bodies[-1]

    results = run(location(started), signal)
    assert ran == [0]
    assert [code_of(result) for result in results] == [ErrorCode.ABORTED] + [
        ErrorCode.ABORTED_BEFORE_DISPATCH
    ] * (COUNT - 1)
    # closed, never run: none is left to warn that it was never awaited
    assert {inspect.getcoroutinestate(body) for body in bodies} == {inspect.CORO_CLOSED}
