"""The `run_code` transport's own rules, driven by a fake engine session (no worker needed).

The conformance suite runs the scenarios under every interpreter with `ScriptedCode`; here the
session is a table of steps, so each rule of the loop (limits, positional calls, a value that is
not JSON, failure mapping, cancellation, closing) is checked at its edge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfx.core import (
    Ask,
    CallsWaiting,
    CancelSignal,
    ClockWanted,
    CodeLimits,
    CodeProgram,
    CodeStubs,
    ContextMessage,
    ErrorCode,
    HostCall,
    HostError,
    HostValue,
    Location,
    Output,
    ProgramFailed,
    ProgramFinished,
    ProgramStep,
    SleepWanted,
    TextBlock,
    ToolCall,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
    execute,
)
from toolfx.core.codemode import SubCall
from toolfx.core.codemode._answers import answer_of
from toolfx.core.codemode._program import _sub_call
from toolfx.core.tools import failed
from toolfx.interpreters import DeterministicInterpreter, SyncRuntime, run_sync

Answer = Mapping[int, HostValue | HostError] | float | None
"""What the host answered a step with: call answers, the clock, or a sleep (None)."""


@dataclass
class FakeSession:
    """Gives `steps` in order; each later step may be a function of the previous answer."""

    steps: list[ProgramStep | Callable[[Answer], ProgramStep]]
    answers: list[Answer] = field(default_factory=list)
    stopped: int = 0
    closed: int = 0

    def _next(self, answer: Answer) -> ProgramStep:
        self.answers.append(answer)
        step = self.steps.pop(0)
        return step(answer) if callable(step) else step

    def begin(self) -> ProgramStep:
        step = self.steps.pop(0)
        assert not callable(step)
        return step

    def answer_calls(self, answers: Mapping[int, HostValue | HostError]) -> ProgramStep:
        return self._next(answers)

    def answer_clock(self, seconds: float) -> ProgramStep:
        return self._next(seconds)

    def answer_sleep(self) -> ProgramStep:
        return self._next(None)

    def stop(self) -> None:
        self.stopped += 1

    def close(self) -> None:
        self.closed += 1


@dataclass
class FakeEngine:
    """Starts one fake session; keeps the programs it was given."""

    session: FakeSession
    limits: CodeLimits = field(default_factory=CodeLimits)
    programs: list[CodeProgram] = field(default_factory=list)

    def start(self, program: CodeProgram) -> FakeSession:
        self.programs.append(program)
        return self.session


class Args(TypedDict):
    x: int


def _location(ran: list[int], *, codemode: bool = True) -> Location:
    def double(args: Args, ctx: object) -> int:
        ran.append(args["x"])
        return args["x"] * 2

    location = Location()
    location.register(
        define_tool(
            name="double",
            description="Twice x.",
            parameters=Args,
            output=Output(int),
            execute=double,
        )
    )
    location.add_scope("agent")
    location.present_as("agent", "code")
    return location


def _run(
    engine: FakeEngine, code: str = "program", signal: CancelSignal | None = None
) -> ToolExecutionResult:
    location = _location([])
    call = ToolCall("c1", "run_code", {"code": code}, signal or CancelSignal())
    return run_sync(execute(location.catalog("agent"), call), SyncRuntime(code=engine))


def _failure(result: ToolExecutionResult) -> ToolExecutionFailure:
    assert isinstance(result, ToolExecutionFailure), result
    return result


def test_a_finished_program_gives_its_value_its_output_and_a_summary() -> None:
    session = FakeSession(
        [
            CallsWaiting((HostCall(7, "double", {"x": 2}), HostCall(9, "double", {"x": "no"}))),
            lambda answers: ProgramFinished({"answers": repr(answers)}, "hello\n"),
        ]
    )
    result = _run(FakeEngine(session))
    assert isinstance(result, ToolExecutionSuccess)
    answers = session.answers[0]
    assert isinstance(answers, Mapping)
    assert answers[7] == HostValue(4)
    assert isinstance(answers[9], HostError)
    assert answers[9].exception == "TypeError"
    assert "`double` failed (INVALID_ARGS)" in answers[9].message
    assert result.meta == {"calls": 2, "failed": 1}
    assert result.content[0].text == "hello\n"  # type: ignore[union-attr]
    assert session.closed == 1


def test_the_engine_gets_the_stubs_and_the_function_names() -> None:
    engine = FakeEngine(FakeSession([ProgramFinished(None)]))
    _run(engine, "x = 1")
    (program,) = engine.programs
    assert program.text == "x = 1"
    assert program.functions == frozenset({"double"})
    assert "async def double(" in program.stubs
    assert program.limits == engine.limits


def test_a_program_over_its_size_never_starts() -> None:
    engine = FakeEngine(FakeSession([]), CodeLimits(program_chars=10))
    failure = _failure(_run(engine, "x" * 11))
    assert failure.error.info.details == {"failure": "limit", "limit": "program"}
    assert engine.programs == []


def test_more_calls_than_the_limit_stop_the_program_before_any_runs() -> None:
    ran: list[int] = []
    location = _location(ran)
    calls = tuple(HostCall(i, "double", {"x": i}) for i in range(4))
    session = FakeSession([CallsWaiting(calls[:2]), CallsWaiting(calls[2:])])
    engine = FakeEngine(session, CodeLimits(tool_calls=3))
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    result = run_sync(execute(location.catalog("agent"), call), SyncRuntime(code=engine))
    failure = _failure(result)
    assert failure.error.code is ErrorCode.TOOL_ERROR
    assert failure.error.info.details == {"failure": "limit", "limit": "tool_calls"}
    assert ran == [0, 1]  # the first two ran; none of the batch that would pass the limit
    assert failure.meta == {"calls": 2, "failed": 0}
    assert (session.stopped, session.closed) == (1, 1)


def test_clock_and_sleep_follow_the_runtime_clock() -> None:
    session = FakeSession(
        [
            SleepWanted(90.0),
            lambda _: ClockWanted(),
            ProgramFinished,
        ]
    )
    location = _location([])
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    interpreter = DeterministicInterpreter(code=FakeEngine(session, CodeLimits(sleep_seconds=90)))
    result = interpreter.run(execute(location.catalog("agent"), call))
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == 90.0  # virtual time: the sleep moved the clock the program read


@pytest.mark.parametrize("seconds", [-1.0, float("nan"), float("inf")])
def test_a_sleep_of_no_length_fails_the_program(seconds: float) -> None:
    failure = _failure(_run(FakeEngine(FakeSession([SleepWanted(seconds)]))))
    assert failure.error.info.details == {"failure": "exception"}


def test_sleeping_past_the_limit_stops_the_program() -> None:
    session = FakeSession([SleepWanted(20.0), lambda _: SleepWanted(20.0)])
    interpreter = DeterministicInterpreter(code=FakeEngine(session, CodeLimits(sleep_seconds=30)))
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    failure = _failure(interpreter.run(execute(_location([]).catalog("agent"), call)))
    assert failure.error.info.details == {"failure": "limit", "limit": "sleep"}
    assert session.stopped == 1


def test_positional_arguments_are_a_type_error_and_never_dispatched() -> None:
    ran: list[int] = []
    location = _location(ran)
    session = FakeSession(
        [CallsWaiting((HostCall(0, "double", {}, (3,)),)), lambda a: ProgramFinished(None)]
    )
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    result = run_sync(
        execute(location.catalog("agent"), call), SyncRuntime(code=FakeEngine(session))
    )
    assert isinstance(result, ToolExecutionSuccess)
    assert session.answers[0] == {
        0: HostError("TypeError", "`double` takes keyword arguments only")
    }
    assert ran == []
    assert result.meta == {"calls": 0, "failed": 0}


def test_a_value_that_is_not_json_is_a_tool_error() -> None:
    failure = _failure(_run(FakeEngine(FakeSession([ProgramFinished({1, 2})]))))
    assert failure.error.code is ErrorCode.TOOL_ERROR
    assert failure.error.info.details == {"failure": "value"}


@pytest.mark.parametrize(
    ("ended", "code", "details"),
    [
        (
            ProgramFailed("type", "main.py:2:5: error", line=2, column=5),
            ErrorCode.INVALID_ARGS,
            {"failure": "type", "line": 2, "column": 5},
        ),
        (ProgramFailed("syntax", "bad"), ErrorCode.INVALID_ARGS, {"failure": "syntax"}),
        (
            ProgramFailed("exception", "Traceback...", exception="KeyError", output="half"),
            ErrorCode.TOOL_ERROR,
            {"failure": "exception", "exception": "KeyError"},
        ),
        (
            ProgramFailed("limit", "slow", limit="time"),
            ErrorCode.TOOL_TIMEOUT,
            {"failure": "limit", "limit": "time"},
        ),
        (
            ProgramFailed("limit", "big", limit="memory"),
            ErrorCode.TOOL_ERROR,
            {"failure": "limit", "limit": "memory"},
        ),
        (ProgramFailed("crashed", "gone"), ErrorCode.TOOL_ERROR, {"failure": "crashed"}),
        (ProgramFailed("unavailable", "none"), ErrorCode.TOOL_ERROR, {"failure": "unavailable"}),
    ],
)
def test_each_way_a_program_fails_is_typed(
    ended: ProgramFailed, code: ErrorCode, details: dict[str, object]
) -> None:
    failure = _failure(_run(FakeEngine(FakeSession([ended]))))
    assert failure.error.code is code
    assert failure.error.info.details == details
    assert ended.message in failure.error.message
    if ended.output:
        assert failure.error.message.endswith(f"It printed:\n{ended.output}")


def test_a_stopped_program_is_aborted_and_closed() -> None:
    signal = CancelSignal()

    def cancel_then_stopped(answer: Answer) -> ProgramStep:
        signal.cancel("the user pressed stop")
        return ProgramFailed("stopped", "stopped")

    session = FakeSession([CallsWaiting((HostCall(0, "double", {"x": 1}),)), cancel_then_stopped])
    failure = _failure(_run(FakeEngine(session), signal=signal))
    assert failure.error.code is ErrorCode.ABORTED
    assert "the user pressed stop" in failure.error.message
    assert (session.stopped, session.closed) == (1, 1)  # the signal's watcher stopped it


def test_a_cancelled_call_never_starts_its_program() -> None:
    signal = CancelSignal()
    signal.cancel()
    engine = FakeEngine(FakeSession([]))
    failure = _failure(_run(engine, signal=signal))
    assert failure.error.code is ErrorCode.ABORTED_BEFORE_DISPATCH
    assert engine.programs == []


_CODES = st.sampled_from(list(ErrorCode))


@given(_CODES)
def test_every_failure_code_raises_its_exception(code: ErrorCode) -> None:
    answer = answer_of("tool", failed(code, "why"))
    assert isinstance(answer, HostError)
    expected = {
        ErrorCode.UNKNOWN_TOOL: "NameError",
        ErrorCode.INVALID_ARGS: "TypeError",
        ErrorCode.DENIED: "PermissionError",
        ErrorCode.TOOL_TIMEOUT: "TimeoutError",
    }.get(code, "RuntimeError")
    assert answer.exception == expected
    assert answer.message == f"`tool` failed ({code.value}): why"


def test_two_values_for_one_argument_are_a_type_error_and_never_dispatched() -> None:
    stubs = CodeStubs("", {"double": "double"}, {"double": {"x_": "x"}})
    refused = _sub_call(HostCall(0, "double", {"x_": 1, "x": 2}), stubs, 1)
    assert refused == HostError("TypeError", "`double` got two values for its argument `x`")
    mapped = _sub_call(HostCall(0, "double", {"x_": 1, "y": 2}), stubs, 1)
    assert mapped == SubCall(1, "double", {"x": 1, "y": 2})  # unmapped names go as they are


def test_sub_calls_carry_their_contexts_and_turn_ending_to_the_program_result() -> None:
    def noting(args: Args, ctx: ToolRunContext) -> int:
        ctx.defer_context(ContextMessage((TextBlock(f"saw {args['x']}"),), "note"))
        if args["x"] == 2:
            ctx.conclude_turn()
        return args["x"]

    location = Location()
    location.register(
        define_tool(
            name="note",
            description="Notes x.",
            parameters=Args,
            output=Output(int),
            execute=noting,
        )
    )
    location.add_scope("agent")
    location.present_as("agent", "code")
    session = FakeSession(
        [
            CallsWaiting((HostCall(0, "note", {"x": 1}), HostCall(1, "note", {"x": 2}))),
            lambda answers: ProgramFinished("done"),
        ]
    )
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    result = run_sync(
        execute(location.catalog("agent"), call), SyncRuntime(code=FakeEngine(session))
    )
    assert isinstance(result, ToolExecutionSuccess)
    assert [m.content for m in result.additional_contexts] == [
        (TextBlock("saw 1"),),
        (TextBlock("saw 2"),),
    ]
    assert result.concludes_turn


def test_a_cancelled_sub_call_ends_the_program_instead_of_answering_it() -> None:
    ran: list[int] = []
    location = _location(ran)

    async def ask(execution: object, next_decision: object) -> Ask:
        return Ask("check first")

    location.on_pre_execute(ask, "agent")
    session = FakeSession([CallsWaiting((HostCall(0, "double", {"x": 1}),))])
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    runtime = SyncRuntime(
        approvals=lambda request: "allowed-once" if request.tool == "run_code" else "cancelled",
        code=FakeEngine(session),
    )
    failure = _failure(run_sync(execute(location.catalog("agent"), call), runtime))
    assert failure.error.code is ErrorCode.ABORTED
    assert "`double` was cancelled before it started" in failure.error.message
    assert session.answers == []  # the program never saw the cancellation as a failure
    assert (session.stopped, session.closed) == (1, 1)
    assert failure.meta == {"calls": 1, "failed": 1}
    assert ran == []


def test_clock_reads_and_sleeps_past_their_count_stop_the_program() -> None:
    session = FakeSession([ClockWanted(), lambda _: ClockWanted(), lambda _: ClockWanted()])
    failure = _failure(_run(FakeEngine(session, CodeLimits(pauses=2))))
    assert failure.error.info.details == {"failure": "limit", "limit": "pauses"}
    assert len(session.answers) == 2
    assert session.stopped == 1
