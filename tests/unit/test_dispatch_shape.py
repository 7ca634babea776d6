"""`dispatch` gives a body's result at once when the body gave its value at once: no coroutine
is made for a plain body (one object and one frame less on every such call)."""

import inspect

import pytest

from tests.support import Pair, add, add_later
from toolfx.core.pipeline import ToolCall
from toolfx.core.pipeline._body import CallState, dispatch
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    Output,
    ToolExecutionSuccess,
    define_tool,
)
from toolfx.interpreters.sync import SyncRuntime


def dispatched(body: object) -> object:
    location = Location()
    definition = define_tool(
        name="add",
        description="Add",
        parameters=Pair,
        output=Output(int),
        execute=body,  # type: ignore[arg-type]
    )
    location.register(definition)
    catalog = location.catalog()
    runtime = SyncRuntime()
    state = CallState(
        ToolCall("c", "add", {"a": 1, "b": 2}, CancelSignal()), runtime, catalog, None, None
    )
    return dispatch(runtime, definition, state)


def test_a_plain_body_gives_its_result_with_no_coroutine() -> None:
    result = dispatched(add)
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == 3


def test_an_async_body_gives_the_coroutine_that_awaits_it() -> None:
    pending = dispatched(add_later)
    assert inspect.iscoroutine(pending)
    with pytest.raises(StopIteration) as finished:  # an async body that never waits
        pending.send(None)
    result = finished.value.value
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == 3
