"""Run one program to its end: every pause answered, every limit of the host's kept.

The engine runs the program; this loop answers it. A `CallsWaiting` goes through the pipeline as
sub-dispatches (numbered from 1 in the program's order across the whole run), a clock read gets
the runtime's clock, a sleep sleeps on the runtime (virtual time under the deterministic
interpreter). Each blocking engine step runs through `Runtime.run_blocking`; the caller's signal
stops the program wherever it is, and a stopped program raises `Cancelled` (ABORTED), as does a
sub-call that was cancelled (a program must not take a cancellation for a failure it can catch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from toolfx.core.codemode._answers import answer_of
from toolfx.core.codemode._host import SubCall
from toolfx.core.json import snapshot_json
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
from toolfx.core.tools import ApprovalDeferred, ErrorCode, ToolExecutionSuccess, waiting_for

if TYPE_CHECKING:
    from collections.abc import Mapping

    from toolfx.core.codemode._host import CodeHost
    from toolfx.core.codemode._stubs import CodeStubs
    from toolfx.core.json import FrozenJson
    from toolfx.core.runtime import (
        CancelSignal,
        CodeLimits,
        CodeSession,
        HostCall,
        LimitName,
        ProgramStep,
    )
    from toolfx.core.tools import ToolRunContext

__all__ = ["run_program"]

_ABORTED: Final = frozenset({ErrorCode.ABORTED, ErrorCode.ABORTED_BEFORE_DISPATCH})
"""A sub-call ended by cancellation (or by a framework deferring its ask) ends the program."""


@final
@dataclass(slots=True)
class _Tally:
    """What the run has done so far."""

    end: ProgramFinished | ProgramFailed | None = None
    calls: int = 0
    failed: int = 0
    slept: float = 0.0
    pauses: int = 0

    def summary(self) -> FrozenJson:
        """The result's meta: how many tool calls the program made, how many failed."""
        summary: FrozenJson = snapshot_json({"calls": self.calls, "failed": self.failed}).unwrap()
        return summary


async def run_program(
    ctx: ToolRunContext, host: CodeHost, text: str, stubs: CodeStubs
) -> ProgramFinished | ProgramFailed:
    """Run `text` against `stubs` in the runtime's engine, attaching the sub-call summary as the
    result's meta whatever happens; `Cancelled` if the call's signal (or a sub-call's
    cancellation) stops it."""
    runtime, signal = ctx.runtime, ctx.signal
    engine = runtime.code
    limits = engine.limits
    run = _Tally()
    if len(text) > limits.program_chars:
        host.attach_meta(run.summary())
        too_long = f"The program is {len(text)} characters; the limit is {limits.program_chars}"
        return ProgramFailed("limit", too_long, limit="program")
    session = engine.start(CodeProgram(text, stubs.text, frozenset(stubs.functions), limits))
    unsubscribe = signal.on_cancel(session.stop)
    try:
        step = await runtime.run_blocking(session.begin)
        while run.end is None:
            _stop_if_cancelled(signal)
            step = await _answer(ctx, host, session, step, stubs, limits, run)
    finally:
        unsubscribe()
        session.close()
        host.attach_meta(run.summary())
    _stop_if_cancelled(signal)
    return run.end


async def _answer(  # noqa: PLR0917 (one step of the loop, with all it needs)
    ctx: ToolRunContext,
    host: CodeHost,
    session: CodeSession,
    step: ProgramStep,
    stubs: CodeStubs,
    limits: CodeLimits,
    run: _Tally,
) -> ProgramStep:
    """Answer one pause and run to the next (or note how the program ended)."""
    runtime = ctx.runtime
    match step:
        case CallsWaiting(calls=calls):
            if run.calls + len(calls) > limits.tool_calls:
                return _ended(session, run, f"{limits.tool_calls} tool calls", "tool_calls")
            answers = await _dispatched(ctx, host, session, calls, stubs, limits, run)
            return await runtime.run_blocking(lambda: session.answer_calls(answers))
        case ClockWanted():
            if (paused := _paused(session, run, limits)) is not None:
                return paused
            now = runtime.now()
            return await runtime.run_blocking(lambda: session.answer_clock(now))
        case SleepWanted(seconds=seconds):
            if not (math.isfinite(seconds) and seconds >= 0):
                run.end = ProgramFailed("exception", f"sleep length must be >= 0, not {seconds}")
                return step
            if run.slept + seconds > limits.sleep_seconds:
                return _ended(session, run, f"{limits.sleep_seconds:g}s of sleep", "sleep")
            if (paused := _paused(session, run, limits)) is not None:
                return paused
            run.slept += seconds
            await runtime.sleep(seconds, ctx.signal)
            return await runtime.run_blocking(session.answer_sleep)
        case ProgramFinished() | ProgramFailed():
            if isinstance(step, ProgramFailed) and step.failure == "stopped":
                raise Cancelled(ctx.signal.reason or CALLER_CANCELLED)
            run.end = step
            return step


def _paused(session: CodeSession, run: _Tally, limits: CodeLimits) -> ProgramFailed | None:
    """Count one clock read or sleep; past `limits.pauses` the program ends."""
    run.pauses += 1
    if run.pauses > limits.pauses:
        return _ended(session, run, f"{limits.pauses} clock reads and sleeps", "pauses")
    return None


def _ended(session: CodeSession, run: _Tally, what: str, limit: LimitName) -> ProgramFailed:
    """Stop the program at one of the host's limits, noting which."""
    session.stop()
    run.end = ProgramFailed("limit", f"The program went past {what}", limit=limit)
    return run.end


async def _dispatched(  # noqa: PLR0917 (the loop's state, then the calls)
    ctx: ToolRunContext,
    host: CodeHost,
    session: CodeSession,
    calls: tuple[HostCall, ...],
    stubs: CodeStubs,
    limits: CodeLimits,
    run: _Tally,
) -> Mapping[int, HostValue | HostError]:
    """Each waiting call answered: keyword calls through the pipeline (their contexts and turn
    ending carried to this call's result), the ones no tool could take refused."""
    answers: dict[int, HostValue | HostError] = {}
    dispatched: list[tuple[HostCall, SubCall]] = []
    for call in calls:
        sub = _sub_call(call, stubs, run.calls + 1)
        if isinstance(sub, HostError):
            answers[call.id] = sub
            continue
        run.calls += 1
        dispatched.append((call, sub))
    results = await host.dispatch_code([sub for _, sub in dispatched], limits.parallel_calls)
    waiting: list[str] = []
    for (call, sub), result in zip(dispatched, results, strict=True):
        for message in result.additional_contexts:
            ctx.defer_context(message)
        if isinstance(result, ToolExecutionSuccess):
            if result.concludes_turn:
                ctx.conclude_turn()
        else:
            run.failed += 1
            if result.error.code in _ABORTED:  # not an answer: the program must not go on
                session.stop()
                raise Cancelled(result.error.message)
            waiting.extend(waiting_for(result.error))
        answers[call.id] = answer_of(sub.name, result)
    if waiting:  # not an answer either: the program resumes once its asks are answered
        session.stop()
        asking = ", ".join(waiting)
        waits = f"The program is waiting for approval of its calls {asking}"
        raise ApprovalDeferred(f"{waits}: it runs again once answered.", tuple(waiting))
    return answers


def _sub_call(call: HostCall, stubs: CodeStubs, number: int) -> SubCall | HostError:
    """The sub-call a host call makes (its names mapped back), or why no tool can take it."""
    if call.positional:
        return HostError("TypeError", f"`{call.function}` takes keyword arguments only")
    names = stubs.arguments.get(call.function, {})
    arguments: dict[str, object] = {}
    for key, value in call.arguments.items():
        name = names.get(key, key)
        if name in arguments:
            twice = f"`{call.function}` got two values for its argument `{name}`"
            return HostError("TypeError", twice)
        arguments[name] = value
    tool = stubs.functions.get(call.function, call.function)
    return SubCall(number, tool, arguments)


def _stop_if_cancelled(signal: CancelSignal) -> None:
    if signal.is_cancelled():
        raise Cancelled(signal.reason or CALLER_CANCELLED)
