"""Run one program to its end: every pause answered, every limit of the host's kept.

The engine runs the program; this loop answers it. A `CallsWaiting` goes through the pipeline as
sub-dispatches (numbered from 1 in the program's order across the whole run), a clock read gets
the runtime's clock, a sleep sleeps on the runtime (virtual time under the deterministic
interpreter). Each blocking engine step runs through `Runtime.run_blocking`; the caller's signal
stops the program wherever it is, and a stopped program raises `Cancelled` (ABORTED).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, final

from toolfx.core.codemode._answers import answer_of
from toolfx.core.codemode._host import SubCall
from toolfx.core.runtime import (
    CALLER_CANCELLED,
    CallsWaiting,
    Cancelled,
    ClockWanted,
    CodeProgram,
    HostError,
    HostValue,
    ProgramFailed,
    ProgramFinished,
    SleepWanted,
)
from toolfx.core.tools import ToolExecutionSuccess

if TYPE_CHECKING:
    from collections.abc import Mapping

    from toolfx.core.codemode._host import CodeHost
    from toolfx.core.codemode._stubs import CodeStubs
    from toolfx.core.runtime import (
        CancelSignal,
        CodeLimits,
        CodeSession,
        HostCall,
        ProgramStep,
        Runtime,
    )

__all__ = ["ProgramOutcome", "run_program"]


@final
@dataclass(frozen=True, slots=True)
class ProgramOutcome:
    """How a program ended, with how many tool calls it made and how many of them failed."""

    end: ProgramFinished | ProgramFailed
    calls: int
    failed: int


@final
@dataclass(slots=True)
class _Tally:
    """What the run has done so far."""

    end: ProgramFinished | ProgramFailed | None = None
    calls: int = 0
    failed: int = 0
    slept: float = 0.0


async def run_program(
    runtime: Runtime, host: CodeHost, signal: CancelSignal, text: str, stubs: CodeStubs
) -> ProgramOutcome:
    """Run `text` against `stubs` in the runtime's engine; `Cancelled` if `signal` stops it."""
    engine = runtime.code
    limits = engine.limits
    if len(text) > limits.program_chars:
        too_long = f"The program is {len(text)} characters; the limit is {limits.program_chars}"
        return ProgramOutcome(ProgramFailed("limit", too_long, limit="program"), 0, 0)
    run = _Tally()
    session = engine.start(CodeProgram(text, stubs.text, frozenset(stubs.functions), limits))
    unsubscribe = signal.on_cancel(session.stop)
    try:
        step = await runtime.run_blocking(session.begin)
        while run.end is None:
            _stop_if_cancelled(signal)
            step = await _answer(runtime, host, signal, session, step, stubs, limits, run)
    finally:
        unsubscribe()
        session.close()
    _stop_if_cancelled(signal)
    return ProgramOutcome(run.end, run.calls, run.failed)


async def _answer(  # noqa: PLR0917 (one step of the loop, with all it needs)
    runtime: Runtime,
    host: CodeHost,
    signal: CancelSignal,
    session: CodeSession,
    step: ProgramStep,
    stubs: CodeStubs,
    limits: CodeLimits,
    run: _Tally,
) -> ProgramStep:
    """Answer one pause and run to the next (or note how the program ended)."""
    match step:
        case CallsWaiting(calls=calls):
            if run.calls + len(calls) > limits.tool_calls:
                session.stop()
                run.end = ProgramFailed(
                    "limit",
                    f"The program made more than {limits.tool_calls} tool calls",
                    limit="tool_calls",
                )
                return step
            answers = await _dispatched(host, calls, stubs, limits, run)
            return await runtime.run_blocking(lambda: session.answer_calls(answers))
        case ClockWanted():
            now = runtime.now()
            return await runtime.run_blocking(lambda: session.answer_clock(now))
        case SleepWanted(seconds=seconds):
            if not (math.isfinite(seconds) and seconds >= 0):
                run.end = ProgramFailed("exception", f"sleep length must be >= 0, not {seconds}")
                return step
            if run.slept + seconds > limits.sleep_seconds:
                session.stop()
                run.end = ProgramFailed(
                    "limit",
                    f"The program slept more than {limits.sleep_seconds:g}s in all",
                    limit="sleep",
                )
                return step
            run.slept += seconds
            await runtime.sleep(seconds, signal)
            return await runtime.run_blocking(session.answer_sleep)
        case ProgramFinished() | ProgramFailed():
            if isinstance(step, ProgramFailed) and step.failure == "stopped":
                raise Cancelled(signal.reason or CALLER_CANCELLED)
            run.end = step
            return step


async def _dispatched(
    host: CodeHost,
    calls: tuple[HostCall, ...],
    stubs: CodeStubs,
    limits: CodeLimits,
    run: _Tally,
) -> Mapping[int, HostValue | HostError]:
    """Each waiting call answered: keyword calls through the pipeline, positional ones refused."""
    answers: dict[int, HostValue | HostError] = {}
    dispatched: list[tuple[HostCall, SubCall]] = []
    for call in calls:
        name = stubs.functions.get(call.function, call.function)
        if call.positional:
            answers[call.id] = HostError(
                "TypeError", f"`{call.function}` takes keyword arguments only"
            )
            continue
        names = stubs.arguments.get(call.function, {})
        arguments = {names.get(key, key): value for key, value in call.arguments.items()}
        run.calls += 1
        dispatched.append((call, SubCall(run.calls, name, arguments)))
    results = await host.dispatch_code([sub for _, sub in dispatched], limits.parallel_calls)
    for (call, sub), result in zip(dispatched, results, strict=True):
        run.failed += not isinstance(result, ToolExecutionSuccess)
        answers[call.id] = answer_of(sub.name, result)
    return answers


def _stop_if_cancelled(signal: CancelSignal) -> None:
    if signal.is_cancelled():
        raise Cancelled(signal.reason or CALLER_CANCELLED)
