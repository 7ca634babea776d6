"""Properties of the pipeline and the batch under the deterministic interpreter.

Random tools (succeed, typed failure, raise, sleep with or without watching the signal, exceed a
timeout), random policies (pre-execute allow/deny/ask with scripted approvals, guards, wrappers
that pass through or replace the signal, post-execute accept/replace/block), random parallel
safety, limits, cancellation points and seeds: every call gets exactly one frozen, JSON-safe
result in order; exclusivity and the parallel limit hold; a seed replays exactly; a guard never
allows more; a raising listener never loses a result.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.pipeline import ToolCall, execute_batch
from toolfx.core.records import ToolResultRecord
from toolfx.core.registry import Catalog, Location
from toolfx.core.tools import (
    ErrorCode,
    PostToolDecision,
    PreToolDecision,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
)
from toolfx.interpreters.testing import DeterministicInterpreter, TraceEvent
from toolfx.interpreters.testing._interpreter import Reported
from toolfx.testing.strategies import BatchScenario, batch_scenarios

FaultyKind = Literal["pre", "wrap", "post", "observer"]

AGENT = "agent"


@dataclass(frozen=True)
class Faulty:
    """A listener that raises for calls of the given tool names."""

    kind: FaultyKind
    names: frozenset[str]


@dataclass
class Tracker:
    """Counts the bodies running at once and records every violation it sees at entry."""

    limit: int
    active: dict[str, bool] = field(default_factory=dict)  # call id -> exclusive
    violations: list[str] = field(default_factory=list)
    spans: list[tuple[str, float, float]] = field(default_factory=list)

    def enter(self, call_id: str, exclusive: bool) -> None:
        self.active[call_id] = exclusive
        if len(self.active) > self.limit:
            self.violations.append(f"{sorted(self.active)} exceed the limit {self.limit}")
        if len(self.active) > 1 and any(self.active.values()):
            self.violations.append(f"an exclusive call overlaps: {self.active}")

    def leave(self, call_id: str, started: float, ended: float) -> None:
        del self.active[call_id]
        self.spans.append((call_id, started, ended))


@dataclass
class Run:
    """What one interpreted batch gave, and what the instruments saw."""

    calls: list[ToolCall]
    results: tuple[ToolExecutionResult, ...]
    trace: tuple[TraceEvent, ...]
    reported: tuple[Reported, ...]
    observed: list[str]
    tracker: Tracker


# ---------------------------------------------------------------------------------------------
# Running a scenario (fresh objects each time: signals are mutable)


def _register_faulty(location: Location, faulty: Faulty) -> None:
    def check(execution: ToolExecution) -> None:
        if execution.name in faulty.names:
            raise ValueError(f"{faulty.kind} listener bug on {execution.call_id}")

    async def pre(
        execution: ToolExecution, next_: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        check(execution)
        return await next_()

    async def wrap(
        execution: ToolExecution,
        next_: Callable[[ToolExecution], Awaitable[ToolExecutionResult]],
    ) -> ToolExecutionResult:
        check(execution)
        return await next_(execution)

    async def post(
        execution: ToolExecution,
        result: ToolExecutionResult,
        next_: Callable[[], Awaitable[PostToolDecision]],
    ) -> PostToolDecision:
        check(execution)
        return await next_()

    def observer(execution: ToolExecution, result: ToolExecutionResult) -> None:
        check(execution)

    match faulty.kind:
        case "pre":
            location.on_pre_execute(pre)
        case "wrap":
            location.wrap_execute(wrap)
        case "post":
            location.on_post_execute(post)
        case "observer":
            location.on_result(observer)


def run(
    scenario: BatchScenario,
    *,
    extra_guard: frozenset[str] = frozenset(),
    faulty: Faulty | None = None,
) -> Run:
    """Build the scenario afresh and run its batch once under the deterministic interpreter."""
    tracker = Tracker(scenario.limit)
    observed: list[str] = []
    location = Location()
    location.add_scope(AGENT)
    if faulty is not None:  # registered first: the outermost listener, asked before any other
        _register_faulty(location, faulty)
    scenario.register(location, tracker)
    if extra_guard:
        location.guard(lambda e: "extra guard" if e.name in extra_guard else None)
    location.on_result(lambda execution, result: observed.append(execution.call_id))
    calls = scenario.tool_calls()
    interpreter = DeterministicInterpreter(
        scenario.seed, scenario.approvals(), scenario.cancel_faults(calls)
    )
    catalog: Catalog = location.catalog(AGENT)
    batch = interpreter.run(execute_batch(catalog, calls, scenario.limit))
    return Run(calls, batch.results, interpreter.trace, interpreter.reported, observed, tracker)


def summary(result: ToolExecutionResult) -> tuple[str, str]:
    """A result as what a comparison across runs may rely on: success value or error code."""
    if isinstance(result, ToolExecutionSuccess):
        return ("ok", str(result.value))
    return ("error", result.error.code.name)


def code(result: ToolExecutionResult) -> ErrorCode | None:
    return result.error.code if isinstance(result, ToolExecutionFailure) else None


def assert_one_result_each(outcome: Run) -> None:
    ids = [call.call_id for call in outcome.calls]
    assert len(outcome.results) == len(outcome.calls)
    assert Counter(outcome.observed) == Counter(ids)
    for call, result in zip(outcome.calls, outcome.results, strict=True):
        params = getattr(type(result), "__dataclass_params__", None)
        assert dataclasses.is_dataclass(result)
        assert params is not None
        assert params.frozen
        assert isinstance(result.content, tuple)
        assert isinstance(result.additional_contexts, tuple)
        json.dumps(ToolResultRecord.of(call.call_id, result).to_json())
        if isinstance(result, ToolExecutionSuccess):  # the model's order: values name the call
            assert result.value in (call.call_id, "stopped", "replaced")


# ---------------------------------------------------------------------------------------------
# Properties


@given(batch_scenarios())
def test_every_call_gets_exactly_one_frozen_json_safe_result_in_order(
    scenario: BatchScenario,
) -> None:
    assert_one_result_each(run(scenario))


@given(batch_scenarios())
def test_exclusive_calls_run_alone_and_parallel_ones_within_the_limit(
    scenario: BatchScenario,
) -> None:
    outcome = run(scenario)
    assert outcome.tracker.violations == []
    assert outcome.tracker.active == {}
    exclusive = {
        f"c{i}"
        for i, name in enumerate(scenario.calls)
        for t in scenario.tools
        if t.name == name and not t.safe
    }
    spans = outcome.tracker.spans
    for call_id, start, end in spans:  # by virtual time too: an exclusive span shares no time
        if call_id in exclusive and start < end:
            assert [s[0] for s in spans if s[1] < end and start < s[2]] == [call_id]
    edges = sorted([(end, -1) for _, _, end in spans] + [(start, 1) for _, start, _ in spans])
    running = 0
    for _, step in edges:  # at one instant, the bodies that end leave before new ones enter
        running += step
        assert running <= scenario.limit


@given(batch_scenarios())
def test_the_same_seed_gives_the_same_trace_and_results(scenario: BatchScenario) -> None:
    first, second = run(scenario), run(scenario)
    assert [str(e) for e in first.trace] == [str(e) for e in second.trace]
    assert first.results == second.results
    assert first.observed == second.observed


@given(batch_scenarios(timing_free=True), st.data())
def test_an_extra_guard_never_turns_a_denial_into_an_allow(
    scenario: BatchScenario, data: st.DataObject
) -> None:
    names = [t.name for t in scenario.tools]
    extra = data.draw(st.frozensets(st.sampled_from(names), min_size=1))
    without, with_guard = run(scenario), run(scenario, extra_guard=extra)
    succeeded = {
        call.call_id
        for call, result in zip(without.calls, without.results, strict=True)
        if isinstance(result, ToolExecutionSuccess)
    }
    for call, result in zip(with_guard.calls, with_guard.results, strict=True):
        if isinstance(result, ToolExecutionSuccess):
            assert call.call_id in succeeded
            assert call.name not in extra


def _code_after_a_fault(scenario: BatchScenario, kind: FaultyKind, name: str) -> ErrorCode | None:
    """A raising wrapper's defect is a result the post-execute waterfall sees (and may replace
    or block); a raising pre or post listener is a defect at the boundary."""
    if kind != "wrap":
        return ErrorCode.UNEXPECTED_ERROR
    match scenario.policy.post.get(name, "next"):
        case "value":
            return None
        case "block":
            return ErrorCode.BLOCKED
        case _:
            return ErrorCode.UNEXPECTED_ERROR


@given(batch_scenarios(timing_free=True), st.data())
def test_a_raising_listener_never_loses_a_result(
    scenario: BatchScenario, data: st.DataObject
) -> None:
    names = [t.name for t in scenario.tools]
    kinds: st.SearchStrategy[FaultyKind] = st.sampled_from(["pre", "wrap", "post", "observer"])
    faulty = Faulty(data.draw(kinds), data.draw(st.frozensets(st.sampled_from(names), min_size=1)))
    baseline, broken = run(scenario), run(scenario, faulty=faulty)
    assert_one_result_each(broken)
    for index, call in enumerate(broken.calls):
        before, after = baseline.results[index], broken.results[index]
        if call.name not in faulty.names or faulty.kind == "observer":
            assert summary(after) == summary(before)
        elif index in scenario.precancelled:
            assert code(after) == code(before)
        elif faulty.kind == "pre" or code(before) is not ErrorCode.DENIED:
            assert code(after) is _code_after_a_fault(scenario, faulty.kind, call.name)
        else:
            assert code(after) is ErrorCode.DENIED
    hit = sum(1 for call in broken.calls if call.name in faulty.names)
    extra_reports = len(broken.reported) - len(baseline.reported)
    assert extra_reports == (hit if faulty.kind == "observer" else 0)
