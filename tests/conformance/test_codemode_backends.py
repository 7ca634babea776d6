"""Code Mode where the built-in interpreters differ: how far gathered calls overlap, and the
deterministic interpreter's virtual time under a program's sleeps and clock reads. The shared
Code Mode scenarios are in `toolfx.testing` (`_scenarios_codemode*`)."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any, TypedDict

import pytest

from tests.conformance.builtin import Builtin, builtin_factory
from toolfx.core.codemode import RUN_CODE
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, CodeLimits, Description, Runtime
from toolfx.core.tools import (
    ErrorCode,
    Output,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.testing import DeterministicInterpreter, Pause, Script, ScriptedCode
from toolfx.testing import Host

TEXT = "the program"

Program = Generator[Pause, object, object]


class Args(TypedDict):
    text: str


def coder(running: list[int] | None = None) -> Location:
    """A scope presented as code with a parallel-safe `read` that counts the bodies running."""
    location = Location()
    peak = running if running is not None else [0]
    now = [0]

    async def read(args: Args, ctx: ToolRunContext) -> str:
        now[0] += 1
        peak[0] = max(peak[0], now[0])
        for _ in range(3):
            await ctx.runtime.checkpoint()
        now[0] -= 1
        return args["text"]

    location.register(
        define_tool(
            name="read",
            description="read",
            parameters=Args,
            output=Output(str),
            execute=read,
            is_concurrency_safe=lambda args: True,
        )
    )
    location.add_scope("coder")
    location.present_as("coder", "code")
    return location


def run_code(call: ToolCall, location: Location) -> Description[ToolExecutionResult]:
    return execute(location.catalog("coder"), call)


def outer(signal: CancelSignal | None = None) -> ToolCall:
    return ToolCall("outer", RUN_CODE, {"code": TEXT}, signal or CancelSignal())


def reads(count: int) -> Script:
    def script() -> Program:
        return (yield Pause.gather(*(Pause.call("read", text=f"{n}") for n in range(count))))

    return script


@pytest.mark.parametrize(
    ("interpreter", "peak"), [("sync", 1), ("asyncio", 3), ("trio", 3), ("deterministic", 3)]
)
def test_gathered_parallel_safe_calls_overlap_up_to_the_limit_where_tasks_run_at_once(
    tmp_path: Path, interpreter: Builtin, peak: int
) -> None:
    running = [0]
    location = coder(running)
    engine = ScriptedCode({TEXT: reads(6)}, limits=CodeLimits(parallel_calls=3))
    host = Host(lambda r: "unavailable", lambda error, where: None, lambda event: None, code=engine)
    result: Any = builtin_factory(interpreter, tmp_path)(host).run(run_code(outer(), location))
    assert result.value == [f"{n}" for n in range(6)]
    assert running == [peak]  # the sync interpreter runs one body after another


def test_a_programs_sleeps_and_clock_reads_take_virtual_time() -> None:
    def script() -> Program:
        start = yield Pause.clock()
        yield Pause.sleep(20.0)
        end = yield Pause.clock()
        return [start, end]

    engine = ScriptedCode({TEXT: script}, limits=CodeLimits(sleep_seconds=30.0))
    interpreter = DeterministicInterpreter(seed=3, code=engine)
    result: Any = interpreter.run(run_code(outer(), coder()))
    assert result.value == [0.0, 20.0]
    assert [str(e) for e in interpreter.trace if e.kind == "sleep"] == ["#1 t=0 task 0: sleep 20s"]


def test_a_cancel_while_a_program_sleeps_aborts_the_call_and_stops_the_program() -> None:
    def script() -> Program:
        yield Pause.sleep(25.0)
        return "woke"

    engine = ScriptedCode({TEXT: script})
    signal = CancelSignal()
    location = coder()

    async def cancelled_at_five(runtime: Runtime) -> ToolExecutionResult:
        async def call() -> ToolExecutionResult | None:
            result: ToolExecutionResult = await run_code(outer(signal), location).program(runtime)
            return result

        async def escape() -> ToolExecutionResult | None:
            await runtime.sleep(5.0)
            signal.cancel("the user pressed escape")
            return None

        result, _ = await runtime.gather([call, escape], 2)
        assert result is not None
        return result

    interpreter = DeterministicInterpreter(seed=5, code=engine)
    result = interpreter.run(Description(cancelled_at_five))
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.ABORTED
    [session] = engine.sessions
    assert (session.stopped, session.closed, session.outcome) == (True, True, None)
    assert interpreter.trace[-1].time == 5.0  # the program's 25 seconds never passed
