"""What only some built-in interpreters have: anyio's own cancellation and task groups, folder
spills, and the deterministic trace. The shared scenarios are in `toolfx.testing`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypedDict

import anyio
import pytest

from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.records import ToolResultRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, ProgressEvent
from toolfx.core.tools import (
    ErrorCode,
    Output,
    PermissionDeclined,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters import AnyioFolderSpills, FolderSpills
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio, run_anyio_async
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import DeterministicInterpreter
from toolfx.testing import SinkLog

Backend = Literal["asyncio", "trio"]


class Args(TypedDict):
    text: str


def location_with(name: str, body: Callable[[Args, ToolRunContext], Any]) -> Location:
    location = Location()
    location.register(
        define_tool(name=name, description="d", parameters=Args, output=Output(str), execute=body)
    )
    return location


def failure(result: ToolExecutionResult) -> ToolExecutionFailure:
    assert isinstance(result, ToolExecutionFailure), result
    return result


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("with_error", [False, True])
def test_a_decline_inside_an_anyio_task_group_is_denied(backend: Backend, with_error: bool) -> None:
    async def declines() -> None:
        raise PermissionDeclined("edit", "no from a task")

    async def fails() -> None:
        raise ValueError("and an error beside it")

    async def body(args: Args, ctx: ToolRunContext) -> str:
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(declines)
                if with_error:
                    group.start_soon(fails)
                group.start_soon(anyio.sleep, 30)
        except Exception:
            return "swallowed"
        return "done"

    call = ToolCall("c", "shout", {"text": "hi"}, CancelSignal())
    catalog = location_with("shout", body).catalog()
    result = failure(run_anyio(execute(catalog, call), backend, AnyioRuntime()))
    assert result.error.code is ErrorCode.DENIED
    assert "no from a task" in result.error.message


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_backend_cancellation_closes_the_open_call_record_and_goes_on(backend: Backend) -> None:
    scopes: list[anyio.CancelScope] = []

    async def body(args: Args, ctx: ToolRunContext) -> str:
        if args["text"] == "stop":
            scopes[0].cancel()  # the caller's scope, as a timeout or a shutdown would
            await ctx.runtime.checkpoint()
            return "not reached"
        return ctx.call_id

    sink = SinkLog()
    texts = ["go", "stop", "go"]
    calls = [
        ToolCall(f"c{i}", "run", {"text": text}, CancelSignal()) for i, text in enumerate(texts)
    ]
    description = execute_batch(location_with("run", body).catalog(), calls, sink=sink)

    async def main() -> None:
        with anyio.CancelScope() as scope:
            scopes.append(scope)
            await run_anyio_async(description, AnyioRuntime())
        assert scope.cancelled_caught

    anyio.run(main, backend=backend)
    assert [(record.event, record.call_id) for record in sink.taken] == [
        ("tool/call", "c0"),
        ("tool/result", "c0"),
        ("tool/call", "c1"),
        ("tool/result", "c1"),
    ]
    closing = sink.taken[-1]
    assert isinstance(closing, ToolResultRecord)
    assert closing.result.error is not None
    assert closing.result.error.code is ErrorCode.ABORTED
    assert closing.result.error.message.startswith("`run` was interrupted (")


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_a_spill_folder_that_cannot_be_made_is_output_not_kept(
    interpreter: str, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    folder = str(blocker / "spills")
    call = ToolCall("call-1", "echo", {"text": "x\n" * 5000}, CancelSignal())
    description = execute(location_with("echo", lambda args, ctx: args["text"]).catalog(), call)
    if interpreter == "sync":
        outcome = run_sync(description, SyncRuntime(spills=FolderSpills(folder)))
    else:
        backend: Backend = "trio" if interpreter == "trio" else "asyncio"
        runtime = AnyioRuntime(spills=AnyioFolderSpills(folder))
        outcome = run_anyio(description, backend, runtime)
    result = failure(outcome)
    assert result.error.code == ErrorCode.OUTPUT_NOT_KEPT
    assert f"could not save the whole output in {folder}: Not a directory" in result.error.message


def test_the_deterministic_trace_records_each_progress_event() -> None:
    seen: list[ProgressEvent] = []

    def body(args: Args, ctx: ToolRunContext) -> str:
        ctx.report_progress(1, 4, "a quarter")
        ctx.report_progress(2)
        return "done"

    interpreter = DeterministicInterpreter(seed=3, progress=seen.append)
    call = ToolCall("call-1", "t", {"text": "hi"}, CancelSignal())
    interpreter.run(execute(location_with("t", body).catalog(), call))
    assert len(seen) == 2
    assert [event.detail for event in interpreter.trace if event.kind == "progress"] == [
        "call-1 1/4",
        "call-1 2",
    ]
