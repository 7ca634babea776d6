"""A tool's remote placement: what it accepts and what it refuses (naming the field); the
scripted remote's trips take virtual time. (A remote tool is not plain: test_plain_route.py.)"""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, Description, RemotePlacement, Runtime
from toolfx.core.tools import (
    Output,
    ToolDefinition,
    ToolDefinitionError,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
    tool,
)
from toolfx.interpreters.testing import DeterministicInterpreter, ScriptedRemote


class Args(TypedDict):
    text: str


def echo(args: Args, ctx: ToolRunContext) -> str:
    return args["text"]


def echo_tool(**extra: Any) -> ToolDefinition[Args, str]:
    return define_tool(
        name="echo", description="d", parameters=Args, output=Output(str), execute=echo, **extra
    )


def test_the_default_placement_asks_one_cpu_and_a_grace_of_five_seconds() -> None:
    assert RemotePlacement() == RemotePlacement(1.0, None, (), None, 5.0)


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"cpus": -1}, "cpus"),
        ({"cpus": float("nan")}, "cpus"),
        ({"cpus": True}, "cpus"),
        ({"cpus": "2"}, "cpus"),
        ({"memory_bytes": 0}, "memory_bytes"),
        ({"memory_bytes": 1.5}, "memory_bytes"),
        ({"resources": (("gpu",),)}, "resources"),
        ({"resources": (("", 1.0),)}, "resources"),
        ({"resources": (("gpu", float("inf")),)}, "resources"),
        ({"resources": [("gpu", 1.0), "cpu"]}, "resources"),
        ({"reference": "no_colon"}, "reference"),
        ({"reference": "a b:c"}, "reference"),
        ({"reference": "mod:"}, "reference"),
        ({"kill_grace": 0}, "kill_grace"),
        ({"kill_grace": float("inf")}, "kill_grace"),
    ],
)
def test_a_bad_placement_is_refused_naming_its_field(fields: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=f"RemotePlacement.{named} must be"):
        RemotePlacement(**fields)


@given(
    cpus=st.floats(min_value=0, max_value=1e6),
    memory=st.none() | st.integers(min_value=1),
    grace=st.floats(min_value=1e-6, max_value=1e6),
)
def test_every_finite_non_negative_placement_is_accepted(
    cpus: float, memory: int | None, grace: float
) -> None:
    placement = RemotePlacement(cpus, memory, (("gpu", cpus),), "pkg.mod:tool", grace)
    assert (placement.cpus, placement.memory_bytes, placement.kill_grace) == (cpus, memory, grace)


def test_a_definition_takes_only_a_placement_as_remote() -> None:
    with pytest.raises(ToolDefinitionError, match="remote: must be a RemotePlacement or None"):
        echo_tool(remote={"cpus": 1})


def test_the_decorator_passes_the_placement_on() -> None:
    placement = RemotePlacement(cpus=2.0)

    @tool(remote=placement)
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    assert shout.remote is placement


def test_the_scripted_remote_takes_its_latency_each_way_on_the_virtual_clock() -> None:
    location = Location()
    location.register(echo_tool(remote=RemotePlacement()))
    remote = ScriptedRemote(location.get, latency=2.5)
    call = ToolCall("c", "echo", {"text": "hi"}, CancelSignal())

    async def timed(runtime: Runtime) -> tuple[float, ToolExecutionResult]:
        start = runtime.now()
        result = await execute(location.catalog(), call).program(runtime)
        return runtime.now() - start, result

    took, result = DeterministicInterpreter(remote=remote).run(Description(timed))
    assert (took, result) == (5.0, ToolExecutionSuccess("hi", result.content))
    assert [request.call_id for request in remote.requests] == ["c"]


def test_a_scripted_remote_refuses_a_negative_latency() -> None:
    with pytest.raises(ValueError, match="latency must be"):
        ScriptedRemote(latency=-1)
