"""A batched call's arguments are validated once: its scheduling's decoding is what its body gets.

The spy counts the compiled validator's checks of one tool's parameters (a type of its own, so
no other test shares its schema), so a second validation per call in `dispatch` fails here.
"""

from collections.abc import Callable, Iterator
from typing import TypedDict

import pytest

from toolfx.core.json import FrozenJson
from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.schema import schema_of
from toolfx.core.tools import (
    ContextMessage,
    ErrorCode,
    Output,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
    text,
)
from toolfx.interpreters.sync import run_sync


class Counted(TypedDict):
    n: int


def double(args: Counted, ctx: ToolRunContext) -> int:
    return args["n"] * 2


@pytest.fixture
def checks() -> Iterator[list[FrozenJson]]:
    """Every value the compiled validator of `Counted` checks, while the test runs."""
    schema = schema_of(Counted)
    original = schema._is_valid  # None until its first validation
    is_valid: Callable[[FrozenJson], bool] = schema.compiled.is_valid_frozen
    seen: list[FrozenJson] = []

    def spy(value: FrozenJson) -> bool:
        seen.append(value)
        return is_valid(value)

    object.__setattr__(schema, "_is_valid", spy)  # frozen for callers; a test may watch it
    try:
        yield seen
    finally:
        object.__setattr__(schema, "_is_valid", original)


def location(classifier: object) -> Location:
    tools = Location()
    tools.register(
        define_tool(
            name="double",
            description="Double",
            parameters=Counted,
            output=Output(int),
            execute=double,
            is_concurrency_safe=classifier,  # type: ignore[arg-type]
        )
    )
    return tools


@pytest.mark.parametrize(
    "classifier", [True, lambda args: args["n"] < 100, None], ids=["true", "callable", "none"]
)
def test_each_batched_call_is_validated_once(checks: list[FrozenJson], classifier: object) -> None:
    calls = [ToolCall(f"c{n}", "double", {"n": n}, CancelSignal()) for n in range(5)]
    batch = run_sync(execute_batch(location(classifier).catalog(), calls))
    assert [r.value for r in batch.results if isinstance(r, ToolExecutionSuccess)] == [
        0,
        2,
        4,
        6,
        8,
    ]
    assert len(checks) == len(calls)


def test_an_invalid_batched_call_runs_alone_validated_once_with_the_single_calls_failure(
    checks: list[FrozenJson],
) -> None:
    catalog = location(True).catalog()
    bad = ToolCall("bad", "double", {"n": "two"}, CancelSignal())
    alone = run_sync(execute(catalog, bad))
    checks.clear()
    calls = [ToolCall("c0", "double", {"n": 1}, CancelSignal()), bad]
    batch = run_sync(execute_batch(catalog, calls))
    assert isinstance(alone, ToolExecutionFailure)
    assert alone.error.code is ErrorCode.INVALID_ARGS
    assert batch.results[1] == alone
    assert len(checks) == len(calls)


def test_a_body_under_a_timeout_watches_its_signal_and_shares_the_calls_state() -> None:
    caller = CancelSignal()
    seen: list[CancelSignal] = []

    def body(args: Counted, ctx: ToolRunContext) -> int:
        seen.append(ctx.signal)
        ctx.defer_context(ContextMessage(text("noted"), "test"))
        ctx.conclude_turn()
        return args["n"]

    tools = Location()
    tools.register(
        define_tool(
            name="timed",
            description="Timed",
            parameters=Counted,
            output=Output(int),
            execute=body,
            timeout=5.0,
        )
    )
    result = run_sync(execute(tools.catalog(), ToolCall("c", "timed", {"n": 3}, caller)))
    assert isinstance(result, ToolExecutionSuccess)
    assert seen[0] is not caller  # the timeout's fused signal
    assert result.concludes_turn
    assert [m.source for m in result.additional_contexts] == ["test"]
