"""A body that gives its content with its value, and a body that reports progress: the same
results and the same progress events under every interpreter.

`ProgressScenarios` gives a scenario `seen` (what the host's reporters received) and
`progress_interpret`, the `run` of the interpreter under test reporting to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

import pytest
from returns.result import Result, Success

from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, ProgressEvent
from toolfx.core.tools import (
    AudioBlock,
    ContentBlock,
    ErrorCode,
    ImageBlock,
    Output,
    TextBlock,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    WithContent,
    define_tool,
)
from toolfx.testing._host import Host, Interpret, InterpreterFactory, unavailable

__all__ = ["ProgressScenarios", "Seen"]


class Args(TypedDict):
    text: str


class Seen:
    """What the interpreter's reporters received."""

    def __init__(self) -> None:
        self.progress: list[ProgressEvent] = []
        self.defects: list[str] = []
        self.failing = False

    def on_progress(self, event: ProgressEvent) -> None:
        """Keep `event`, or raise when `failing`."""
        if self.failing:
            raise RuntimeError("the display is gone")
        self.progress.append(event)

    def report(self, error: BaseException, where: str) -> None:
        """Keep where the defect was reported."""
        self.defects.append(where)


def run_tool(
    interpret: Interpret, execute_body: Callable[[Args, ToolRunContext], Any], output: Any = str
) -> ToolExecutionResult:
    location = Location()
    location.register(
        define_tool(
            name="t", description="d", parameters=Args, output=Output(output), execute=execute_body
        )
    )
    call = ToolCall("call-1", "t", {"text": "hi"}, CancelSignal())
    result: ToolExecutionResult = interpret(execute(location.catalog(), call))
    return result


MEDIA: tuple[ContentBlock, ...] = (
    TextBlock("see", {"audience": ["user"]}),
    ImageBlock("AAAA", "image/png"),
    AudioBlock("BBBB", "audio/wav"),
)


class ProgressScenarios:
    """Content given with a body's value, and progress reported by a body."""

    @pytest.fixture
    def seen(self) -> Seen:
        """Empty reporters that do not fail."""
        return Seen()

    @pytest.fixture
    def progress_interpret(self, seen: Seen, interpreter_factory: InterpreterFactory) -> Interpret:
        """The `run` of the interpreter under test, reporting defects and progress to `seen`."""
        return interpreter_factory(Host(unavailable, seen.report, seen.on_progress)).run

    def test_content_given_with_the_value_is_the_content(
        self, progress_interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> WithContent[str]:
            return WithContent(args["text"], list(MEDIA))

        assert run_tool(progress_interpret, body) == ToolExecutionSuccess("hi", MEDIA)

    def test_content_given_in_a_success_is_the_content(self, progress_interpret: Interpret) -> None:
        async def body(args: Args, ctx: ToolRunContext) -> Result[WithContent[str], ToolFailure]:
            return Success(WithContent(args["text"], MEDIA))

        assert run_tool(progress_interpret, body) == ToolExecutionSuccess("hi", MEDIA)

    def test_a_value_given_with_content_is_checked_like_any_value(
        self, progress_interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> WithContent[str]:
            return WithContent(args["text"], MEDIA)

        result = run_tool(progress_interpret, body, output=int)
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code is ErrorCode.INVALID_TOOL_OUTPUT

    def test_content_that_is_not_blocks_is_invalid_tool_output(
        self, progress_interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> WithContent[str]:
            return WithContent(args["text"], [TextBlock("a"), "b"])  # type: ignore[list-item]

        result = run_tool(progress_interpret, body)
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code is ErrorCode.INVALID_TOOL_OUTPUT
        assert result.error.message == (
            "Tool `t` returned content whose block 1 is str, not a content block"
        )

    def test_progress_reaches_the_runtimes_reporter(
        self, progress_interpret: Interpret, seen: Seen
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> str:
            ctx.report_progress(1, 4, "a quarter")
            ctx.report_progress(2)
            return "done"

        assert run_tool(progress_interpret, body) == ToolExecutionSuccess(
            "done", (TextBlock("done"),)
        )
        assert seen.progress == [
            ProgressEvent("call-1", "t", 1.0, 4.0, "a quarter"),
            ProgressEvent("call-1", "t", 2.0),
        ]

    def test_a_raising_progress_reporter_is_a_contained_defect(
        self, progress_interpret: Interpret, seen: Seen
    ) -> None:
        seen.failing = True

        def body(args: Args, ctx: ToolRunContext) -> str:
            ctx.report_progress(1)
            return "done"

        assert run_tool(progress_interpret, body) == ToolExecutionSuccess(
            "done", (TextBlock("done"),)
        )
        assert seen.defects == ["reporting the progress of `t`"]
