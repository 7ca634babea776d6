"""What the remote runners' integration tests share: the interpreters they run under, one call of
a tool through a runner, and what a marker file of pids says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, Description, RemoteRunner
from toolfx.core.tools import ToolDefinition, ToolExecutionFailure, ToolExecutionResult
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.sync import SyncRuntime, run_sync

__all__ = ["RUNS", "Run", "call", "failure_of", "pids"]

Run = Callable[[Description[Any], RemoteRunner], Any]
"""Runs a description under an interpreter whose runtime has the runner given."""

RUNS: dict[str, Run] = {
    "sync": lambda description, remote: run_sync(description, SyncRuntime(remote=remote)),
    "asyncio": lambda description, remote: run_anyio(
        description, "asyncio", AnyioRuntime(remote=remote)
    ),
}
"""The interpreters a remote runner is tried under, by name."""


def call(
    run: Run,
    remote: RemoteRunner,
    tool: ToolDefinition[Any, Any],
    arguments: object,
    signal: CancelSignal | None = None,
) -> ToolExecutionResult:
    """The result of one call of `tool`, alone in its Location, with `remote` as the runner."""
    location = Location()
    location.register(tool)
    given = ToolCall("call-1", tool.name, arguments, signal or CancelSignal())
    result: ToolExecutionResult = run(execute(location.catalog(), given), remote)
    return result


def failure_of(result: ToolExecutionResult) -> ToolExecutionFailure:
    """`result`, which must be a failure."""
    assert isinstance(result, ToolExecutionFailure), result
    return result


def pids(marker: Path) -> list[int]:
    """The pids a body wrote to `marker`, in order."""
    return [int(pid) for pid in marker.read_text("utf-8").split()]
