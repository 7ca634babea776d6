"""How a batch is grouped: parallel-safe calls together, every other call alone, in order."""

from typing import TypedDict

import pytest

from toolfx.core.pipeline import ToolCall, execute_batch
from toolfx.core.pipeline._schedule import schedule
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import Output, ToolRunContext, define_tool


class Args(TypedDict):
    text: str


def test_schedule_makes_exclusive_calls_barriers() -> None:
    def body(args: Args, ctx: ToolRunContext) -> str:
        return ctx.call_id

    location = Location()
    for name, safe in (("read", True), ("write", False)):
        location.register(
            define_tool(
                name=name,
                description=name,
                parameters=Args,
                output=Output(str),
                execute=body,
                is_concurrency_safe=(lambda args: True) if safe else None,
            )
        )
    names = ("read", "read", "write", "read", "nope", "read", "read")
    calls = [ToolCall(f"c{i}", name, {"text": ""}, CancelSignal()) for i, name in enumerate(names)]
    assert schedule(location.catalog(), calls).groups == [[0, 1], [2], [3], [4], [5, 6]]


def test_the_parallel_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        execute_batch(Location().catalog(), [], limit=0)
