"""toolfx.testing.strategies drives the pipeline: valid, hostile and unknown calls, one result each.

A batch of drawn calls (valid arguments, some huge; hostile ones: wrong types, NaN, too deep,
unknown fields, no object; tools nobody registered) over drawn tools of every parameter and
output shape runs under the deterministic interpreter: every call gets exactly one result, in
order, and its code (or its value) is what the call deserves.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from toolfx.core.pipeline import execute_batch
from toolfx.core.registry import Location
from toolfx.core.tools import (
    ErrorCode,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
)
from toolfx.interpreters.testing import DeterministicInterpreter
from toolfx.testing.strategies import (
    PARAMETER_SHAPES,
    CallSpec,
    ParameterShape,
    ToolSpec,
    call_specs,
    hostile_arguments,
    tool_specs,
    valid_arguments,
)

_OUTCOME_CODES = {"fail": ErrorCode.TOOL_ERROR, "raise": ErrorCode.UNEXPECTED_ERROR}


@st.composite
def turns(draw: st.DrawFn) -> tuple[tuple[ToolSpec, ...], tuple[CallSpec, ...], int, int]:
    """Tools, calls of them (and of unknown tools), a parallel limit and a seed."""
    names = [f"t{i}" for i in range(draw(st.integers(1, 3)))]
    tools = tuple(draw(tool_specs(name)) for name in names)
    calls = tuple(draw(st.lists(call_specs(tools), min_size=1, max_size=6)))
    return tools, calls, draw(st.integers(1, 4)), draw(st.integers(0, 2**32 - 1))


def code(result: ToolExecutionResult) -> ErrorCode | None:
    return result.error.code if isinstance(result, ToolExecutionFailure) else None


@given(turns())
def test_every_drawn_call_gets_exactly_one_result_with_the_code_it_deserves(
    turn: tuple[tuple[ToolSpec, ...], tuple[CallSpec, ...], int, int],
) -> None:
    tools, specs, limit, seed = turn
    location = Location()
    for tool_spec in tools:
        location.register(tool_spec.define())
    calls = [spec.call(f"c{i}") for i, spec in enumerate(specs)]
    batch = DeterministicInterpreter(seed).run(execute_batch(location.catalog(), calls, limit))
    assert len(batch.results) == len(calls)
    by_name = {tool.name: tool for tool in tools}
    for spec, result in zip(specs, batch.results, strict=True):
        tool = by_name.get(spec.tool)
        if tool is None:
            assert code(result) is ErrorCode.UNKNOWN_TOOL
        elif not spec.valid:
            assert code(result) is ErrorCode.INVALID_ARGS
        elif tool.timeout is None and tool.outcome == "ok":
            assert isinstance(result, ToolExecutionSuccess)
            assert isinstance(spec.arguments, dict)
            assert result.value == tool.value(spec.arguments["text"])
        elif tool.timeout is None:
            assert code(result) is _OUTCOME_CODES[tool.outcome]
        else:  # a timeout may or may not strike first: either way the arguments were accepted
            assert code(result) not in (ErrorCode.INVALID_ARGS, ErrorCode.UNKNOWN_TOOL)


@given(st.sampled_from(PARAMETER_SHAPES), st.data())
def test_valid_arguments_fit_the_shape_and_hostile_ones_do_not(
    shape: ParameterShape, data: st.DataObject
) -> None:
    schema = ToolSpec("t", "ok", 0.0, "ignore", True, None, shape).define().parameters
    assert isinstance(schema.validate(data.draw(valid_arguments(shape))), Success)
    assert isinstance(schema.validate(data.draw(hostile_arguments(shape))), Failure)
