"""Code Mode outcome scenarios: how a `run_code` program ends, under every interpreter.

The clock and sleeps are the runtime's; a program the checker rejects is INVALID_ARGS with where
(nothing runs); an uncaught exception is a TOOL_ERROR carrying the traceback; a crashed worker,
a program no engine can run and a value that is not JSON are typed TOOL_ERRORs; every limit (the
engine's time, memory, recursion and output, the host's tool calls, sleep and program size) says
which; a caller's cancellation aborts the call and stops the program.
"""

from __future__ import annotations

from typing import Literal

import pytest

from toolfx.core.runtime import CancelSignal, CodeLimits
from toolfx.core.tools import ErrorCode, Output, ToolRunContext, define_tool
from toolfx.interpreters.testing import Pause, Rejected
from toolfx.testing._scenarios_codemode import (
    CODER,
    TEXT,
    Args,
    CodeModeWorld,
    Coder,
    CodeWorld,
    Program,
    details,
    shouting,
)
from toolfx.testing._scenarios_pipeline import World

__all__ = ["CodeOutcomeScenarios"]


class CodeOutcomeScenarios(CodeModeWorld):
    """How a `run_code` program ends: values, rejections, exceptions, limits, cancellation."""

    def test_clock_and_sleep_are_the_runtimes(self, code: CodeWorld, coder: Coder) -> None:
        def script() -> Program:
            start = yield Pause.clock()
            slept = yield Pause.sleep(0.01)
            end = yield Pause.clock()
            return [start, slept, end]

        ran = coder.run(script)
        assert isinstance(ran.value, list)
        start, slept, end = ran.value
        assert isinstance(start, float)
        assert isinstance(end, float)
        assert slept is None
        assert end >= start  # the runtime's monotonic clock

    @pytest.mark.parametrize(
        "rejected", [Rejected("syntax", "invalid syntax", 2, 5), Rejected("type", "no `b`", 1, 9)]
    )
    def test_a_rejected_program_is_invalid_args_with_where_and_runs_nothing(
        self, code: CodeWorld, coder: Coder, rejected: Rejected
    ) -> None:
        ran = coder.run(rejected)
        assert ran.failure.error.code is ErrorCode.INVALID_ARGS
        assert details(ran) == {
            "failure": rejected.failure,
            "line": rejected.line,
            "column": rejected.column,
        }
        assert rejected.message in ran.failure.error.message
        assert f"line {rejected.line}, column {rejected.column}" in ran.failure.error.message
        assert code.bodies == []

    def test_an_uncaught_exception_is_a_tool_error_with_the_traceback(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        def script() -> Program:
            yield Pause.emit("working\n")
            yield Pause.call("shout", text="secret")
            return "not reached"

        code.world.location.guard(lambda execution: "never" if execution.name == "shout" else None)
        ran = coder.run(script)
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert details(ran) == {"failure": "exception", "exception": "PermissionError"}
        message = ran.failure.error.message
        assert "Traceback" in message
        assert "PermissionError: `shout` failed (DENIED)" in message
        assert message.endswith("It printed:\nworking\n")
        assert ran.result.meta == {"calls": 1, "failed": 1}

    def test_a_crashed_worker_is_a_typed_tool_error(self, code: CodeWorld, coder: Coder) -> None:
        def script() -> Program:
            yield Pause.crash()
            return "not reached"

        ran = coder.run(script)
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert details(ran) == {"failure": "crashed"}
        assert "crashed" in ran.failure.error.message

    def test_a_program_no_engine_can_run_fails_naming_why(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        ran = coder.run(shouting("hi"), text="something the engine has no script for")
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert details(ran) == {"failure": "unavailable"}
        assert "no script matches the program" in ran.failure.error.message

    def test_a_value_that_is_not_json_is_a_tool_error(self, code: CodeWorld, coder: Coder) -> None:
        def script() -> Program:
            yield Pause.emit("")
            return {1, 2}

        ran = coder.run(script)
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert "not a JSON value" in ran.failure.error.message

    # limits -------------------------------------------------------------------------------------

    @pytest.mark.parametrize(
        ("limit", "code_of"),
        [
            ("time", ErrorCode.TOOL_TIMEOUT),
            ("memory", ErrorCode.TOOL_ERROR),
            ("recursion", ErrorCode.TOOL_ERROR),
        ],
    )
    def test_an_engine_limit_is_a_typed_failure_naming_it(
        self,
        code: CodeWorld,
        coder: Coder,
        limit: Literal["time", "memory", "recursion"],
        code_of: ErrorCode,
    ) -> None:
        def script() -> Program:
            yield Pause.call("shout", text="hi")
            yield Pause.exceed(limit)
            return "not reached"

        ran = coder.run(script)
        assert ran.failure.error.code is code_of
        assert details(ran) == {"failure": "limit", "limit": limit}
        assert f"its {limit} limit" in ran.failure.error.message
        assert ran.result.meta == {"calls": 1, "failed": 0}

    def test_the_tool_call_limit_stops_the_program_before_the_call_past_it(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        def script() -> Program:
            yield Pause.call("shout", text="one")
            yield Pause.gather(Pause.call("read", text="two"), Pause.call("read", text="three"))
            return "not reached"

        ran = coder.run(script, limits=CodeLimits(tool_calls=2))
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert details(ran) == {"failure": "limit", "limit": "tool_calls"}
        assert code.bodies == ["one"]
        assert ran.session is not None
        assert ran.session.stopped
        assert ran.session.closed

    def test_the_sleep_limit_counts_every_sleep(self, code: CodeWorld, coder: Coder) -> None:
        def script() -> Program:
            yield Pause.sleep(0.01)
            yield Pause.sleep(0.015)
            return "not reached"

        ran = coder.run(script, limits=CodeLimits(sleep_seconds=0.02))
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert details(ran) == {"failure": "limit", "limit": "sleep"}

    def test_clock_reads_and_sleeps_past_their_count_stop_the_program(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        def script() -> Program:
            yield Pause.clock()
            yield Pause.sleep(0)
            yield Pause.clock()
            return "not reached"

        ran = coder.run(script, limits=CodeLimits(pauses=2))
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert details(ran) == {"failure": "limit", "limit": "pauses"}
        assert ran.session is not None
        assert ran.session.stopped

    def test_a_program_longer_than_its_limit_never_starts(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        ran = coder.run(shouting("hi"), limits=CodeLimits(program_chars=len(TEXT) - 1))
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert details(ran) == {"failure": "limit", "limit": "program"}
        assert ran.session is None
        assert coder.run(shouting("hi"), limits=CodeLimits(program_chars=len(TEXT))).value == ["HI"]

    def test_printing_past_the_output_limit_fails_keeping_what_fit(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        def script() -> Program:
            yield Pause.emit("hello")
            return "not reached"

        ran = coder.run(script, limits=CodeLimits(output_bytes=4))
        assert ran.failure.error.code is ErrorCode.TOOL_ERROR
        assert details(ran) == {"failure": "limit", "limit": "output"}
        assert ran.failure.error.message.endswith("It printed:\nhell")

    # cancellation -------------------------------------------------------------------------------

    def test_a_call_cancelled_before_dispatch_never_starts_its_program(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        signal = CancelSignal()
        signal.cancel()
        ran = coder.run(shouting("hi"), signal=signal)
        assert ran.failure.error.code is ErrorCode.ABORTED_BEFORE_DISPATCH
        assert ran.session is None

    def test_a_cancel_mid_program_stops_it_and_aborts_the_call(
        self, world: World, coder: Coder
    ) -> None:
        signal = CancelSignal()
        said: list[str] = []

        def cancelling(args: Args, ctx: ToolRunContext) -> str:
            said.append(args["text"])
            signal.cancel("the user pressed escape")
            return args["text"]

        world.location.register(
            define_tool(
                name="shout",
                description="d",
                parameters=Args,
                output=Output(str),
                execute=cancelling,
            )
        )
        world.location.add_scope(CODER)
        world.location.present_as(CODER, "code")
        ran = coder.run(shouting("one", "two"), signal=signal)
        assert ran.failure.error.code is ErrorCode.ABORTED
        assert said == ["one"]
        assert ran.session is not None
        assert ran.session.stopped
        assert ran.session.closed
        assert [call.function for call in ran.session.calls] == ["shout"]
