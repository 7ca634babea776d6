"""Description combinators: gather and traverse, in order or as children; lifts into returns."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.context import RequiresContextFutureResult
from returns.result import Failure, Result, Success

from toolfx.core.pipeline import ToolCall, call_tool, described, lifted, lifted_result
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, Description, Runtime, gather, traverse
from toolfx.core.tools import ToolFailure
from toolfx.interpreters.sync import run_sync
from toolfx.interpreters.testing import DeterministicInterpreter
from toolfx.testing.laws import LawfulDescription, lawful_descriptions


@dataclass
class Overlap:
    """Counts the descriptions running at once, and the most there ever were."""

    running: int = 0
    most: int = 0
    order: list[int] = field(default_factory=list)


def paused(index: int, seconds: float, overlap: Overlap) -> Description[int]:
    """Enter, sleep `seconds` of virtual time, note the index, leave; yield the index."""

    async def program(runtime: Runtime) -> int:
        overlap.running += 1
        overlap.most = max(overlap.most, overlap.running)
        await runtime.sleep(seconds)
        overlap.order.append(index)
        overlap.running -= 1
        return index

    return Description(program)


def test_gather_without_a_limit_runs_one_after_another_in_the_calling_task() -> None:
    overlap = Overlap()
    interpreter = DeterministicInterpreter()
    pauses = [3.0, 1.0, 2.0]
    results = interpreter.run(gather(paused(i, s, overlap) for i, s in enumerate(pauses)))
    assert results == (0, 1, 2)
    assert overlap.order == [0, 1, 2]
    assert overlap.most == 1
    assert [e.detail for e in interpreter.trace if e.kind == "spawn"] == ["main"]
    assert interpreter.trace[-1].time == sum(pauses)


@given(st.lists(st.sampled_from([0.5, 1.0, 2.0]), max_size=8), st.integers(1, 4), st.integers())
def test_gather_with_a_limit_runs_children_at_most_limit_at_once_results_in_order(
    pauses: list[float], limit: int, seed: int
) -> None:
    overlap = Overlap()
    interpreter = DeterministicInterpreter(seed)
    descriptions = [paused(i, s, overlap) for i, s in enumerate(pauses)]
    assert interpreter.run(gather(descriptions, limit=limit)) == tuple(range(len(pauses)))
    assert overlap.most == min(limit, len(pauses))
    assert sum(1 for e in interpreter.trace if e.kind == "spawn") == len(pauses) + 1


def test_gather_with_a_limit_raises_the_first_failure() -> None:
    async def broken(runtime: Runtime) -> int:
        await runtime.checkpoint()
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        DeterministicInterpreter().run(gather([Description.of(1), Description(broken)], limit=2))


@pytest.mark.parametrize("limit", [0, -1])
def test_gather_refuses_a_limit_below_one(limit: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        gather([Description.of(1)], limit=limit)


@given(st.lists(st.integers(), max_size=6), st.sampled_from([None, 1, 3]))
def test_traverse_is_gather_of_the_mapped_descriptions(items: list[int], limit: int | None) -> None:
    def doubled(item: int) -> Description[int]:
        return Description.of(item).map(lambda value: value * 2)

    expected = run_sync(gather([doubled(item) for item in items], limit=limit))
    assert run_sync(traverse(items, doubled, limit=limit)) == expected
    assert expected == tuple(item * 2 for item in items)


def test_gather_of_nothing_is_the_empty_tuple() -> None:
    assert run_sync(gather([])) == ()
    assert run_sync(gather([], limit=2)) == ()


@given(st.integers() | st.text())
def test_lifted_result_is_described_s_inverse(value: int | str) -> None:
    succeeded: Result[int | str, str] = Success(value)
    failed: Result[int | str, str] = Failure(f"no {value}")
    for outcome in (succeeded, failed):
        assert run_sync(described(lifted_result(Description.of(outcome)))) == outcome


def test_lifted_composes_with_calls_and_propagates_what_the_description_raises() -> None:
    catalog = Location().catalog()
    named: RequiresContextFutureResult[str, ToolFailure, Runtime] = lifted(Description.of("read"))
    composed = named.bind(lambda name: call_tool(catalog, ToolCall("1", name, {}, CancelSignal())))
    outcome = run_sync(described(composed))
    assert isinstance(outcome, Failure)
    assert isinstance(outcome.failure(), ToolFailure)

    async def broken(runtime: Runtime) -> int:
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        run_sync(described(lifted(Description(broken)).map(lambda n: n + 1)))


def then(
    before: Description[tuple[int, ...]], after: Description[int]
) -> Description[tuple[int, ...]]:
    """`before`, then `after`, its result appended."""
    return before.bind(lambda done: after.map(lambda value: (*done, value)))


@given(st.lists(lawful_descriptions(LawfulDescription[int]), max_size=4))
def test_gather_in_order_is_the_chain_of_binds_effects_and_all(
    drawn: list[LawfulDescription[int]],
) -> None:
    nothing: Description[tuple[int, ...]] = Description.of(())
    chained = functools.reduce(then, (each.description for each in drawn), nothing)
    gathered = LawfulDescription(gather(each.description for each in drawn))
    assert gathered == LawfulDescription(chained)
    if len(drawn) > 1:  # as children the trace differs: the laws see the spawns
        assert LawfulDescription(gather([d.description for d in drawn], limit=1)) != gathered
