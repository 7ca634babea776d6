"""A call with no hook before or around its body, under the sync interpreter, is run without a
coroutine and without a `ToolExecution` unless something asks for one (counted, not timed)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import Pair, add, add_later
from toolfx.core.pipeline import ToolCall, _call, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    Output,
    ToolExecution,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.sync import SyncRuntime, run_sync

seen: list[object] = []


def add_seeing(args: Pair, ctx: ToolRunContext) -> int:
    seen.extend((ctx.root_call_id, ctx.arguments, ctx.agent))  # what the execution holds
    return args["a"] + args["b"]


def location(body: Any) -> Location:
    place = Location()
    place.register(
        define_tool(
            name="add", description="Add", parameters=Pair, output=Output(int), execute=body
        )
    )
    return place


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[ToolExecution]:
    """Every `ToolExecution` built meanwhile, wherever it is built."""
    executions: list[ToolExecution] = []
    original = ToolExecution.__init__

    def counted(self: ToolExecution, *fields: Any) -> None:
        original(self, *fields)
        executions.append(self)

    monkeypatch.setattr(ToolExecution, "__init__", counted)
    return executions


@pytest.fixture
def coroutines(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the pipeline's coroutines started (run_call, the hooked and later routes)."""
    started: list[str] = []
    for name in ("run_call", "_policed", "_dispatched_later"):
        original = getattr(_call, name)

        def spy(*arguments: Any, _original: Any = original, _name: str = name) -> Any:
            started.append(_name)
            return _original(*arguments)

        monkeypatch.setattr(_call, name, spy)
    return started


def run(place: Location) -> ToolExecutionResult:
    call = ToolCall("c", "add", {"a": 1, "b": 2}, CancelSignal())
    return run_sync(execute(place.catalog(), call), SyncRuntime())


def test_a_plain_call_builds_no_execution_and_no_coroutine(
    built: list[ToolExecution], coroutines: list[str]
) -> None:
    result = run(location(add))
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == 3
    assert built == []
    assert coroutines == []


def test_a_body_asking_for_its_execution_gets_one_built_once(built: list[ToolExecution]) -> None:
    seen.clear()
    assert run(location(add_seeing)).value == 3  # type: ignore[union-attr]
    assert len(built) == 1
    assert seen == ["c", {"a": 1, "b": 2}, None]
    execution = built[0]
    assert (execution.call_id, execution.root_call_id, execution.name) == ("c", "c", "add")
    assert (execution.arguments, execution.parent) == ({"a": 1, "b": 2}, None)


def test_an_observer_gets_the_one_execution_built_for_it(built: list[ToolExecution]) -> None:
    observed: list[ToolExecution] = []
    place = location(add)
    place.on_result(lambda execution, result: observed.append(execution))
    assert run(place).value == 3  # type: ignore[union-attr]
    assert observed == built
    assert len(built) == 1


def test_an_async_body_finishes_in_the_later_route(coroutines: list[str]) -> None:
    assert run(location(add_later)).value == 3  # type: ignore[union-attr]
    assert coroutines == ["_dispatched_later"]


def test_a_hooked_call_runs_its_policy_in_a_coroutine(coroutines: list[str]) -> None:
    place = location(add)
    place.guard(lambda execution: None)
    assert run(place).value == 3  # type: ignore[union-attr]
    assert coroutines == ["_policed"]
