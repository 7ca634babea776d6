"""The scripted Code Mode engine under random scripts driven by a fake host.

A random script makes calls (some failing, caught by the script), gathers, sleeps, clock reads
and prints, and returns what it received. A fake host answers every call from its arguments and
keeps a clock that only its sleeps move. Every call is asked for once with the next id and gets
exactly one answer; the program's value is what the script received, worked out from the steps
alone; the output is everything printed.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.runtime import (
    HOST_EXCEPTIONS,
    CallsWaiting,
    ClockWanted,
    CodeLimits,
    CodeProgram,
    HostCall,
    HostError,
    HostException,
    HostValue,
    ProgramFinished,
    ProgramStep,
    SleepWanted,
)
from toolfx.interpreters.testing import Pause, ScriptedCode


@dataclass(frozen=True, slots=True)
class Call:
    function: str
    number: int
    fails: HostException | None


@dataclass(frozen=True, slots=True)
class Gather:
    calls: tuple[Call, ...]


@dataclass(frozen=True, slots=True)
class Sleep:
    seconds: float


@dataclass(frozen=True, slots=True)
class Clock:
    pass


@dataclass(frozen=True, slots=True)
class Emit:
    text: str


Step = Call | Gather | Sleep | Clock | Emit

calls = st.builds(
    Call,
    st.sampled_from(["add", "read", "search"]),
    st.integers(-5, 5),
    st.none() | st.sampled_from(HOST_EXCEPTIONS),
)
steps: st.SearchStrategy[Step] = st.one_of(
    calls,
    st.builds(Gather, st.lists(calls, max_size=4).map(tuple)),
    st.builds(Sleep, st.sampled_from([0.5, 1.0, 2.0])),
    st.builds(Clock),
    st.builds(Emit, st.text(max_size=8)),
)


def pause(call: Call) -> Pause:
    return Pause.call(call.function, number=call.number, fails=call.fails)


def script_of(plan: Sequence[Step]) -> Generator[Pause, object, object]:
    """The program: every step in turn, returning what each step received (errors caught)."""
    received: list[object] = []
    for step in plan:
        match step:
            case Call():
                moved = pause(step)
            case Gather(gathered):
                moved = Pause.gather(*map(pause, gathered))
            case Sleep(seconds):
                moved = Pause.sleep(seconds)
            case Clock():
                moved = Pause.clock()
            case Emit(text):
                moved = Pause.emit(text)
        try:
            received.append((yield moved))
        except Exception as error:
            received.append(["raised", type(error).__name__, str(error)])
    return received


def answer(call: HostCall) -> HostValue | HostError:
    """The fake host's answer to a call, from its arguments alone."""
    fails = call.arguments["fails"]
    if fails is None:
        return HostValue([call.function, call.arguments["number"]])
    assert fails in HOST_EXCEPTIONS
    return HostError(fails, f"{call.function} failed")


def expected(plan: Sequence[Step]) -> list[object]:
    """What the script receives at each step, worked out without running it."""
    received: list[object] = []
    now = 0.0
    for step in plan:
        match step:
            case Call() | Gather():
                gathered = step.calls if isinstance(step, Gather) else (step,)
                failed = [call for call in gathered if call.fails is not None]
                values = [[call.function, call.number] for call in gathered]
                if failed:
                    message = f"{failed[0].function} failed"
                    received.append(["raised", failed[0].fails, message])
                else:
                    received.append(values if isinstance(step, Gather) else values[0])
            case Sleep(seconds):
                now += seconds
                received.append(None)
            case Clock():
                received.append(now)
            case Emit():
                received.append(None)
    return received


@given(st.lists(steps, max_size=12))
def test_every_call_gets_one_answer_and_the_value_is_what_the_script_received(
    plan: list[Step],
) -> None:
    text = f"program {plan!r}"
    engine = ScriptedCode({text: lambda: script_of(plan)})
    tools = frozenset({"add", "read", "search"})
    session = engine.start(CodeProgram(text, "", tools, CodeLimits()))
    asked: list[int] = []
    answered: list[int] = []
    now = 0.0
    step: ProgramStep = session.begin()
    while not isinstance(step, ProgramFinished):
        match step:
            case CallsWaiting(waiting):
                asked.extend(call.id for call in waiting)
                answers = {call.id: answer(call) for call in waiting}
                answered.extend(answers)
                step = session.answer_calls(answers)
            case ClockWanted():
                step = session.answer_clock(now)
            case SleepWanted(seconds):
                now += seconds
                step = session.answer_sleep()
            case _:
                raise AssertionError(f"the program failed: {step}")
    session.close()
    made = sum(len(s.calls) if isinstance(s, Gather) else isinstance(s, Call) for s in plan)
    assert asked == answered == list(range(made))
    assert [call.id for call in session.calls] == asked
    assert step == ProgramFinished(
        expected(plan), "".join(s.text for s in plan if isinstance(s, Emit))
    )
