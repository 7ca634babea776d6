"""A body that gives its content with its value, and a body that reports progress: the same
results and the same progress events under every interpreter."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypedDict

import pytest
from returns.result import Result, Success

from toolfx.core import (
    AudioBlock,
    CancelSignal,
    ContentBlock,
    Description,
    ErrorCode,
    ImageBlock,
    Location,
    Output,
    ProgressEvent,
    TextBlock,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    WithContent,
    define_tool,
)
from toolfx.core.execution import ExecutionToken, ToolExecution
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.progress import progress_event
from toolfx.interpreters import (
    AnyioRuntime,
    DeterministicInterpreter,
    SyncRuntime,
    run_anyio,
    run_sync,
)

Interpret = Callable[[Description[Any]], Any]


class Args(TypedDict):
    text: str


class Seen:
    """What the interpreter's reporters received."""

    def __init__(self) -> None:
        self.progress: list[ProgressEvent] = []
        self.defects: list[str] = []
        self.traced: int | None = None  # progress events in the deterministic trace
        self.failing = False

    def on_progress(self, event: ProgressEvent) -> None:
        if self.failing:
            raise RuntimeError("the display is gone")
        self.progress.append(event)

    def report(self, error: BaseException, where: str) -> None:
        self.defects.append(where)


@pytest.fixture
def seen() -> Seen:
    return Seen()


@pytest.fixture(params=["sync", "asyncio", "trio", "deterministic"])
def interpret(request: pytest.FixtureRequest, seen: Seen) -> Interpret:
    progress = seen.on_progress
    if request.param == "sync":
        sync = SyncRuntime(on_defect=seen.report, progress=progress)
        return lambda description: run_sync(description, sync)
    if request.param == "deterministic":
        interpreter = DeterministicInterpreter(seed=3, progress=progress)

        def deterministic(description: Description[Any]) -> Any:
            outcome = interpreter.run(description)
            seen.defects.extend(where for _, where in interpreter.reported)
            seen.traced = [e.kind for e in interpreter.trace].count("progress")
            return outcome

        return deterministic
    runtime = AnyioRuntime(on_defect=seen.report, progress=progress)
    backend = request.param
    return lambda description: run_anyio(description, backend, runtime)


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


def test_content_given_with_the_value_is_the_content(interpret: Interpret) -> None:
    def body(args: Args, ctx: ToolRunContext) -> WithContent[str]:
        return WithContent(args["text"], list(MEDIA))

    assert run_tool(interpret, body) == ToolExecutionSuccess("hi", MEDIA)


def test_content_given_in_a_success_is_the_content(interpret: Interpret) -> None:
    async def body(args: Args, ctx: ToolRunContext) -> Result[WithContent[str], ToolFailure]:
        return Success(WithContent(args["text"], MEDIA))

    assert run_tool(interpret, body) == ToolExecutionSuccess("hi", MEDIA)


def test_a_value_given_with_content_is_checked_like_any_value(interpret: Interpret) -> None:
    def body(args: Args, ctx: ToolRunContext) -> WithContent[str]:
        return WithContent(args["text"], MEDIA)

    result = run_tool(interpret, body, output=int)
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_TOOL_OUTPUT


def test_content_that_is_not_blocks_is_invalid_tool_output(interpret: Interpret) -> None:
    def body(args: Args, ctx: ToolRunContext) -> WithContent[str]:
        return WithContent(args["text"], [TextBlock("a"), "b"])  # type: ignore[list-item]

    result = run_tool(interpret, body)
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_TOOL_OUTPUT
    assert result.error.message == (
        "Tool `t` returned content whose block 1 is str, not a content block"
    )


def test_progress_reaches_the_runtimes_reporter(interpret: Interpret, seen: Seen) -> None:
    def body(args: Args, ctx: ToolRunContext) -> str:
        ctx.report_progress(1, 4, "a quarter")
        ctx.report_progress(2)
        return "done"

    assert run_tool(interpret, body) == ToolExecutionSuccess("done", (TextBlock("done"),))
    assert seen.progress == [
        ProgressEvent("call-1", "t", 1.0, 4.0, "a quarter"),
        ProgressEvent("call-1", "t", 2.0),
    ]
    assert seen.traced in {None, 2}


def test_a_raising_progress_reporter_is_a_contained_defect(
    interpret: Interpret, seen: Seen
) -> None:
    seen.failing = True

    def body(args: Args, ctx: ToolRunContext) -> str:
        ctx.report_progress(1)
        return "done"

    assert run_tool(interpret, body) == ToolExecutionSuccess("done", (TextBlock("done"),))
    assert seen.defects == ["reporting the progress of `t`"]


@pytest.mark.parametrize(
    ("progress", "total", "message", "problem"),
    [
        (float("nan"), None, None, "progress must be a finite number, not nan"),
        (1, float("inf"), None, "total must be a finite number, not inf"),
        ("1", None, None, "progress must be a number, not '1'"),
        (True, None, None, "progress must be a number, not True"),
        (1, None, 3, "the progress message must be a string, not 3"),
    ],
)
def test_unusable_progress_is_refused_naming_it(
    progress: Any, total: Any, message: Any, problem: str
) -> None:
    execution = ToolExecution("c", "c", "t", {}, None, ExecutionToken(), CancelSignal())
    with pytest.raises(ValueError, match="^" + re.escape(problem) + "$"):
        progress_event(execution, progress, total, message)
