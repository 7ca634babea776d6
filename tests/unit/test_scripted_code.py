"""The scripted Code Mode engine: scripts by program text, host answers, limits, stop and close."""

from __future__ import annotations

from collections.abc import Generator
from typing import Literal

import pytest

from toolfx.core.runtime import (
    HOST_EXCEPTIONS,
    CallsWaiting,
    ClockWanted,
    CodeEngine,
    CodeLimits,
    CodeProgram,
    HostCall,
    HostError,
    HostException,
    HostValue,
    ProgramFailed,
    ProgramFinished,
    SleepWanted,
)
from toolfx.interpreters.sync import SyncRuntime
from toolfx.interpreters.testing import Pause, Rejected, Script, ScriptedCode, ScriptedSession

Run = Generator[Pause, object, object]

TEXT = "await add(a=1, b=2)"


def program(text: str = TEXT, limits: CodeLimits | None = None) -> CodeProgram:
    chosen = CodeLimits() if limits is None else limits
    stubs = (
        "async def add(*, a: int, b: int) -> int: ...\nasync def mul(*, a: int, b: int) -> int: ..."
    )
    return CodeProgram(text, stubs, frozenset({"add", "mul"}), chosen)


def session(script: Script | Rejected, limits: CodeLimits | None = None) -> ScriptedSession:
    return ScriptedCode({TEXT: script}).start(program(limits=limits))


def returns(value: object) -> Script:
    def script() -> Run:
        yield from ()
        return value

    return script


# values and host calls --------------------------------------------------------------------------


def test_a_script_that_pauses_nowhere_finishes_with_its_value() -> None:
    assert session(returns({"a": [1, None]})).begin() == ProgramFinished({"a": [1, None]}, "")


def test_a_call_waits_with_its_id_name_and_arguments_and_gets_its_value() -> None:
    def script() -> Run:
        total = yield Pause.call("add", a=1, b=2)
        return ["got", total]

    run = session(script)
    assert run.begin() == CallsWaiting((HostCall(0, "add", {"a": 1, "b": 2}),))
    assert run.answer_calls({0: HostValue(3)}) == ProgramFinished(["got", 3])


def test_positional_arguments_reach_the_host_as_they_were_given() -> None:
    def script() -> Run:
        yield Pause.call("add", 1, 2, b=3)
        return None

    waiting = session(script).begin()
    assert waiting == CallsWaiting((HostCall(0, "add", {"b": 3}, (1, 2)),))


def test_call_ids_count_from_zero_in_each_session_across_pauses() -> None:
    def script() -> Run:
        yield Pause.call("add", a=1, b=1)
        yield Pause.gather(Pause.call("add", a=2, b=2), Pause.call("add", a=3, b=3))
        yield Pause.call("add", a=4, b=4)
        return None

    engine = ScriptedCode({TEXT: script})
    for _ in range(2):
        run = engine.start(program())
        first = run.begin()
        second = run.answer_calls({0: HostValue(2)})
        third = run.answer_calls({1: HostValue(4), 2: HostValue(6)})
        assert isinstance(first, CallsWaiting)
        assert isinstance(second, CallsWaiting)
        assert isinstance(third, CallsWaiting)
        ids = [call.id for step in (first, second, third) for call in step.calls]
        assert ids == [0, 1, 2, 3]
        assert run.answer_calls({3: HostValue(8)}) == ProgramFinished(None)
        assert [call.id for call in run.calls] == [0, 1, 2, 3]


@pytest.mark.parametrize("exception", HOST_EXCEPTIONS)
def test_a_failed_call_raises_the_named_exception_the_script_can_catch(
    exception: HostException,
) -> None:
    def script() -> Run:
        try:
            yield Pause.call("add", a=1, b=2)
        except Exception as error:
            return [type(error).__name__, str(error)]
        return "not raised"

    run = session(script)
    run.begin()
    answer = HostError(exception, "add failed: DENIED")
    assert run.answer_calls({0: answer}) == ProgramFinished([exception, "add failed: DENIED"])


def test_an_uncaught_failed_call_fails_the_program_with_a_traceback() -> None:
    def script() -> Run:
        yield Pause.call("add", a=1, b=2)
        return "not reached"

    run = session(script)
    run.begin()
    failed = run.answer_calls({0: HostError("PermissionError", "add was denied")})
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.exception) == ("exception", "PermissionError")
    assert failed.message.startswith("Traceback (most recent call last):")
    assert failed.message.endswith("\nPermissionError: add was denied")


def test_an_exception_the_script_raises_fails_the_program_naming_its_type() -> None:
    def script() -> Run:
        yield Pause.emit("before\n")
        raise KeyError

    failed = session(script).begin()
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.exception, failed.output) == (
        "exception",
        "KeyError",
        "before\n",
    )
    assert failed.message.endswith("\nKeyError")


def test_a_call_to_a_name_that_is_not_a_tool_raises_name_error_without_reaching_the_host() -> None:
    def script() -> Run:
        raised = []
        for pause in (
            Pause.call("div", a=1, b=2),
            Pause.gather(Pause.call("add", a=1, b=1), Pause.call("sub", a=1, b=1)),
        ):
            try:
                yield pause
            except NameError as error:
                raised.append(str(error))
        total = yield Pause.call("add", a=1, b=1)
        return [raised, total]

    run = session(script)
    assert run.begin() == CallsWaiting((HostCall(0, "add", {"a": 1, "b": 1}),))
    expected = ["name 'div' is not a tool", "name 'sub' is not a tool"]
    assert run.answer_calls({0: HostValue(2)}) == ProgramFinished([expected, 2])
    assert [call.function for call in run.calls] == ["add"]


# gathered calls ---------------------------------------------------------------------------------


def test_gathered_calls_wait_together_and_answer_as_a_list_in_order() -> None:
    def script() -> Run:
        values = yield Pause.gather(Pause.call("add", a=1, b=1), Pause.call("mul", a=2, b=3))
        return values

    run = session(script)
    waiting = run.begin()
    assert waiting == CallsWaiting(
        (HostCall(0, "add", {"a": 1, "b": 1}), HostCall(1, "mul", {"a": 2, "b": 3}))
    )
    assert run.answer_calls({1: HostValue(6), 0: HostValue(2)}) == ProgramFinished([2, 6])


def test_a_gather_raises_its_first_failure_in_order() -> None:
    def script() -> Run:
        try:
            yield Pause.gather(*(Pause.call("add", a=n, b=n) for n in range(3)))
        except Exception as error:
            return [type(error).__name__, str(error)]
        return "not raised"

    run = session(script)
    run.begin()
    answers: dict[int, HostValue | HostError] = {
        0: HostValue(0),
        1: HostError("TimeoutError", "first"),
        2: HostError("NameError", "second"),
    }
    assert run.answer_calls(answers) == ProgramFinished(["TimeoutError", "first"])


def test_an_empty_gather_answers_at_once_with_no_pause() -> None:
    def script() -> Run:
        values = yield Pause.gather()
        return values

    assert session(script).begin() == ProgramFinished([])


def test_gather_takes_only_calls() -> None:
    with pytest.raises(TypeError, match=r"Pause\.call"):
        Pause.gather(Pause.call("add", a=1, b=1), Pause.sleep(1.0))


# clock, sleep, output ---------------------------------------------------------------------------


def test_a_clock_read_receives_the_hosts_seconds_and_a_sleep_resumes_with_none() -> None:
    def script() -> Run:
        start = yield Pause.clock()
        slept = yield Pause.sleep(2.5)
        return [start, slept]

    run = session(script)
    assert run.begin() == ClockWanted()
    assert run.answer_clock(12.5) == SleepWanted(2.5)
    assert run.answer_sleep() == ProgramFinished([12.5, None])


def test_printed_text_is_kept_in_order_with_the_value() -> None:
    def script() -> Run:
        yield Pause.emit("one\n")
        yield Pause.call("add", a=1, b=1)
        yield Pause.emit("two\n")
        return 2

    run = session(script)
    run.begin()
    assert run.answer_calls({0: HostValue(2)}) == ProgramFinished(2, "one\ntwo\n")


def test_output_up_to_the_limit_is_fine_and_one_byte_more_fails_naming_the_limit() -> None:
    def exactly() -> Run:
        yield Pause.emit("é" * 4)  # 8 bytes
        return "ok"

    def over() -> Run:
        yield Pause.emit("ab")
        yield Pause.emit("é" * 4)  # 10 bytes in all: the kept 8 end inside a character
        return "not reached"

    limits = CodeLimits(output_bytes=8)
    assert session(exactly, limits).begin() == ProgramFinished("ok", "éééé")
    failed = session(over, limits).begin()
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.limit, failed.output) == ("limit", "output", "abééé")
    assert "output limit (8 bytes)" in failed.message


@pytest.mark.parametrize(
    ("limit", "named"),
    [
        ("time", "time limit (1.5 seconds)"),
        ("memory", "memory limit (1024 bytes)"),
        ("recursion", "recursion limit (7 frames)"),
    ],
)
def test_an_engine_limit_fails_the_program_saying_which(
    limit: Literal["time", "memory", "recursion"], named: str
) -> None:
    def script() -> Run:
        yield Pause.emit("so far")
        yield Pause.exceed(limit)
        return "not reached"

    limits = CodeLimits(seconds=1.5, memory_bytes=1024, recursion_depth=7)
    failed = session(script, limits).begin()
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.limit, failed.output) == ("limit", limit, "so far")
    assert named in failed.message


def test_a_crash_fails_the_program_as_crashed() -> None:
    def script() -> Run:
        yield Pause.crash()
        return "not reached"

    failed = session(script).begin()
    assert isinstance(failed, ProgramFailed)
    assert failed.failure == "crashed"


def test_a_program_longer_than_its_limit_never_runs() -> None:
    ran: list[str] = []

    def script() -> Run:
        ran.append("ran")
        yield from ()
        return None

    failed = session(script, CodeLimits(program_chars=len(TEXT) - 1)).begin()
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.limit) == ("limit", "program")
    assert f"it may have {len(TEXT) - 1}" in failed.message
    assert ran == []
    assert session(script, CodeLimits(program_chars=len(TEXT))).begin() == ProgramFinished(None)


# rejected and unknown programs ------------------------------------------------------------------


@pytest.mark.parametrize(
    "rejected", [Rejected("syntax", "invalid syntax", 3, 7), Rejected("type", "add() missing b")]
)
def test_a_rejected_program_fails_at_begin_with_where(rejected: Rejected) -> None:
    run = session(rejected)
    expected = ProgramFailed(
        rejected.failure, rejected.message, line=rejected.line, column=rejected.column
    )
    assert run.begin() == expected
    assert run.calls == ()


def test_a_program_no_script_matches_is_unavailable_naming_why() -> None:
    engine = ScriptedCode({TEXT: returns(1)})
    failed = engine.start(program("print('something else')\nmore")).begin()
    assert isinstance(failed, ProgramFailed)
    assert failed.failure == "unavailable"
    assert "no script matches the program" in failed.message
    assert "print('something else')" in failed.message


# stop and close ---------------------------------------------------------------------------------


def test_stop_before_begin_stops_the_program_before_it_runs() -> None:
    ran: list[str] = []

    def script() -> Run:
        ran.append("ran")
        yield Pause.clock()
        return None

    run = session(script)
    run.stop()
    assert run.begin() == ProgramFailed("stopped", "the program was stopped")
    assert ran == []
    assert run.stopped


def test_stop_while_paused_makes_the_next_method_stopped_and_ends_the_script() -> None:
    ended: list[str] = []

    def script() -> Run:
        try:
            yield Pause.emit("printed")
            yield Pause.call("add", a=1, b=1)
        finally:
            ended.append("finally")
        return "not reached"

    run = session(script)
    run.begin()
    run.stop()
    stopped = run.answer_calls({0: HostValue(2)})
    assert stopped == ProgramFailed("stopped", "the program was stopped", output="printed")
    assert ended == ["finally"]
    assert run.outcome == stopped


def test_stop_during_a_step_ends_it_with_stopped() -> None:
    engine = ScriptedCode({})

    def script() -> Run:
        engine.sessions[0].stop()  # as another thread would, while the step runs
        yield Pause.call("add", a=1, b=1)
        return "not reached"

    engine = ScriptedCode({TEXT: script})
    run = engine.start(program())
    assert run.begin() == ProgramFailed("stopped", "the program was stopped")
    assert run.calls == ()


def test_an_answer_the_program_does_not_wait_for_after_stop_is_stopped() -> None:
    def script() -> Run:
        yield Pause.clock()
        return None

    run = session(script)
    run.begin()
    run.stop()
    assert run.answer_sleep() == ProgramFailed("stopped", "the program was stopped")
    with pytest.raises(RuntimeError, match="it ended"):
        run.answer_clock(1.0)


def test_close_ends_a_paused_script_is_idempotent_and_refuses_further_steps() -> None:
    ended: list[str] = []

    def script() -> Run:
        try:
            yield Pause.sleep(1.0)
        finally:
            ended.append("finally")
        return None

    run = session(script)
    run.begin()
    run.close()
    run.close()
    assert ended == ["finally"]
    assert run.closed
    assert run.outcome is None
    with pytest.raises(RuntimeError, match="does not sleep"):
        run.answer_sleep()


# a host that answers what it was not asked ------------------------------------------------------


def test_answers_must_name_exactly_the_waiting_calls() -> None:
    def script() -> Run:
        yield Pause.gather(Pause.call("add", a=1, b=1), Pause.call("add", a=2, b=2))
        return None

    run = session(script)
    run.begin()
    with pytest.raises(ValueError, match=r"waits on calls \[0, 1\], not \[0\]"):
        run.answer_calls({0: HostValue(2)})
    with pytest.raises(ValueError, match=r"not \[0, 1, 2\]"):
        run.answer_calls({0: HostValue(2), 1: HostValue(4), 2: HostValue(0)})
    with pytest.raises(TypeError, match="HostValue or a HostError"):
        run.answer_calls({0: HostValue(2), 1: 4})  # type: ignore[dict-item]
    assert run.answer_calls({0: HostValue(2), 1: HostValue(4)}) == ProgramFinished(None)


def test_answering_what_the_program_does_not_wait_for_is_refused() -> None:
    def script() -> Run:
        yield Pause.clock()
        return None

    run = session(script)
    with pytest.raises(RuntimeError, match="begin was not called"):
        run.answer_clock(1.0)
    run.begin()
    with pytest.raises(RuntimeError, match="reads the clock"):
        run.answer_calls({})
    with pytest.raises(RuntimeError, match="reads the clock"):
        run.answer_sleep()
    with pytest.raises(RuntimeError, match="once"):
        run.begin()
    run.answer_clock(1.0)
    with pytest.raises(RuntimeError, match="it ended: ProgramFinished"):
        run.answer_clock(1.0)


# the engine -------------------------------------------------------------------------------------


def test_the_engine_is_a_runtimes_code_capability_and_keeps_every_session() -> None:
    limits = CodeLimits(tool_calls=3)
    engine = ScriptedCode({TEXT: returns(7)}, limits=limits)
    capability: CodeEngine = engine
    assert SyncRuntime(code=capability).code is engine
    assert engine.limits == limits
    first, second = engine.start(program()), engine.start(program())
    assert (first.begin(), second.begin()) == (ProgramFinished(7), ProgramFinished(7))
    assert engine.sessions == (first, second)
    assert first.program == program()
    assert ScriptedCode({}).limits == CodeLimits()
