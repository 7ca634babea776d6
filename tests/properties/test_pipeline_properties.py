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
from typing import Literal, TypedDict

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from toolfx.core.pipeline import ToolCall, execute_batch
from toolfx.core.records import ToolResultRecord
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, Cancelled, CancelSignal
from toolfx.core.tools import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    ErrorCode,
    Output,
    PostToolDecision,
    PreToolDecision,
    ReplaceContent,
    ReplaceValue,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    define_tool,
    text,
)
from toolfx.interpreters.testing import CancelAt, DeterministicInterpreter, TraceEvent
from toolfx.interpreters.testing._interpreter import Reported

Outcome = Literal["ok", "fail", "raise"]
Watch = Literal["ignore", "watch", "catch"]
PreChoice = Literal["allow", "deny", "ask", "next"]
PostChoice = Literal["accept", "content", "value", "block", "next", "next"]
WrapChoice = Literal["none", "pass", "replace"]
FaultyKind = Literal["pre", "wrap", "post", "observer"]

AGENT = "agent"
UNKNOWN = "nope"


class Args(TypedDict):
    text: str


@dataclass(frozen=True)
class ToolSpec:
    """One random tool: what its body does, and how it is declared."""

    name: str
    outcome: Outcome
    seconds: float
    watch: Watch
    safe: bool
    timeout: float | None


@dataclass(frozen=True)
class Scenario:
    """A random turn: tools, calls (tool names), policies, limit, faults and seed."""

    tools: tuple[ToolSpec, ...]
    calls: tuple[str, ...]
    pre: dict[str, PreChoice]
    guarded: frozenset[str]
    wrap: WrapChoice
    post: dict[str, PostChoice]
    script: tuple[ApprovalReply, ...] | None  # None: approve by call index (timing-free)
    approved: frozenset[int]
    limit: int
    cancels: tuple[tuple[int, int], ...]  # (scheduler step, call index)
    precancelled: frozenset[int]
    seed: int


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

    def leave(self, call_id: str) -> None:
        del self.active[call_id]


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
# Strategies

_replies: st.SearchStrategy[ApprovalReply] = st.sampled_from(
    ["allowed-once", "allowed-once", "allowed-once", "rejected", "cancelled", "unavailable"]
)


def _tool(name: str) -> st.SearchStrategy[ToolSpec]:
    return st.builds(
        ToolSpec,
        name=st.just(name),
        outcome=st.sampled_from(["ok", "fail", "raise"]),
        seconds=st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        watch=st.sampled_from(["ignore", "watch", "catch"]),
        safe=st.booleans(),
        timeout=st.sampled_from([None, None, 0.75, 2.0]),
    )


@st.composite
def scenarios(draw: st.DrawFn, *, timing_free: bool = False) -> Scenario:
    count = draw(st.integers(1, 4))
    names = [f"t{i}" for i in range(count)]
    tools = tuple(draw(_tool(name)) for name in names)
    calls = tuple(
        draw(st.lists(st.sampled_from([*names, *names, *names, UNKNOWN]), min_size=1, max_size=7))
    )
    pre_choices: st.SearchStrategy[PreChoice] = st.sampled_from(
        ["allow", "deny", "ask", "ask", "next", "next"]
    )
    post_choices: st.SearchStrategy[PostChoice] = st.sampled_from(
        ["accept", "content", "value", "block", "next", "next"]
    )
    indexes = st.integers(0, len(calls) - 1)
    script = None if timing_free else tuple(draw(st.lists(_replies, max_size=8)))
    cancels = (
        ()
        if timing_free
        else tuple(draw(st.lists(st.tuples(st.integers(1, 40), indexes), max_size=2)))
    )
    return Scenario(
        tools=tools,
        calls=calls,
        pre=draw(st.dictionaries(st.sampled_from(names), pre_choices)),
        guarded=draw(st.frozensets(st.sampled_from(names), max_size=1)),
        wrap=draw(st.sampled_from(["none", "pass", "replace"])),
        post=draw(st.dictionaries(st.sampled_from(names), post_choices)),
        script=script,
        approved=draw(st.frozensets(indexes)),
        limit=draw(st.integers(1, 4)),
        cancels=cancels,
        precancelled=draw(st.frozensets(indexes, max_size=1)),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


# ---------------------------------------------------------------------------------------------
# Building and running a scenario (fresh objects each time: signals are mutable)


def _body(
    spec: ToolSpec, tracker: Tracker
) -> Callable[[Args, ToolRunContext], Awaitable[Result[str, ToolFailure]]]:
    async def body(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
        tracker.enter(ctx.call_id, not spec.safe)
        start = ctx.runtime.now()
        try:
            await ctx.runtime.checkpoint()
            if spec.seconds:
                if spec.watch == "ignore":
                    await ctx.runtime.sleep(spec.seconds)
                elif spec.watch == "watch":
                    await ctx.runtime.sleep(spec.seconds, ctx.signal)
                else:
                    try:
                        await ctx.runtime.sleep(spec.seconds, ctx.signal)
                    except Cancelled:
                        return Success("stopped")
            if spec.outcome == "fail":
                return Failure(ToolFailure(f"{spec.name} refuses"))
            if spec.outcome == "raise":
                raise RuntimeError(f"{spec.name} broke")
            return Success(args["text"])
        finally:
            tracker.leave(ctx.call_id)
            tracker.spans.append((ctx.call_id, start, ctx.runtime.now()))

    return body


def _always(args: Args) -> bool:
    return True


def _register_tools(location: Location, scenario: Scenario, tracker: Tracker) -> None:
    for spec in scenario.tools:
        location.register(
            define_tool(
                name=spec.name,
                description=spec.name,
                parameters=Args,
                output=Output(str),
                execute=_body(spec, tracker),
                timeout=spec.timeout,
                is_concurrency_safe=_always if spec.safe else None,
            )
        )


def _register_policies(location: Location, scenario: Scenario) -> None:
    async def pre(
        execution: ToolExecution, next_: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        match scenario.pre.get(execution.name, "next"):
            case "allow":
                return Allow()
            case "deny":
                return Deny(f"no {execution.name}")
            case "ask":
                return Ask(f"{execution.name} needs approval")
            case _:
                return await next_()

    def guard(execution: ToolExecution) -> str | None:
        return f"{execution.name} is guarded" if execution.name in scenario.guarded else None

    async def wrap(
        execution: ToolExecution,
        next_: Callable[[ToolExecution], Awaitable[ToolExecutionResult]],
    ) -> ToolExecutionResult:
        if scenario.wrap == "replace":
            return await next_(execution.with_signal(CancelSignal()))
        return await next_(execution)

    async def post(
        execution: ToolExecution,
        result: ToolExecutionResult,
        next_: Callable[[], Awaitable[PostToolDecision]],
    ) -> PostToolDecision:
        match scenario.post.get(execution.name, "next"):
            case "accept":
                return Accept()
            case "content":
                return ReplaceContent(text("replaced"))
            case "value":
                return ReplaceValue("replaced")
            case "block":
                return Block(text(f"{execution.name} blocked"))
            case _:
                return await next_()

    location.on_pre_execute(pre)
    location.guard(guard)
    if scenario.wrap != "none":
        location.wrap_execute(wrap)
    location.on_post_execute(post)


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
    scenario: Scenario, *, extra_guard: frozenset[str] = frozenset(), faulty: Faulty | None = None
) -> Run:
    """Build the scenario afresh and run its batch once under the deterministic interpreter."""
    tracker = Tracker(scenario.limit)
    observed: list[str] = []
    location = Location()
    location.add_scope(AGENT)
    if faulty is not None:  # registered first: the outermost listener, asked before any other
        _register_faulty(location, faulty)
    _register_tools(location, scenario, tracker)
    _register_policies(location, scenario)
    if extra_guard:
        location.guard(lambda e: "extra guard" if e.name in extra_guard else None)
    location.on_result(lambda execution, result: observed.append(execution.call_id))
    calls = [
        ToolCall(f"c{i}", name, {"text": f"c{i}"}, CancelSignal())
        for i, name in enumerate(scenario.calls)
    ]
    for index in scenario.precancelled:
        calls[index].signal.cancel("cancelled up front")
    faults = [CancelAt(step, calls[index].signal) for step, index in scenario.cancels]

    def by_call(request: ApprovalRequest) -> ApprovalReply:
        return "allowed-once" if int(request.call_id[1:]) in scenario.approved else "rejected"

    approvals = by_call if scenario.script is None else scenario.script
    interpreter = DeterministicInterpreter(scenario.seed, approvals, faults)
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


@given(scenarios())
def test_every_call_gets_exactly_one_frozen_json_safe_result_in_order(scenario: Scenario) -> None:
    assert_one_result_each(run(scenario))


@given(scenarios())
def test_exclusive_calls_run_alone_and_parallel_ones_within_the_limit(scenario: Scenario) -> None:
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


@given(scenarios())
def test_the_same_seed_gives_the_same_trace_and_results(scenario: Scenario) -> None:
    first, second = run(scenario), run(scenario)
    assert [str(e) for e in first.trace] == [str(e) for e in second.trace]
    assert first.results == second.results
    assert first.observed == second.observed


@given(scenarios(timing_free=True), st.data())
def test_an_extra_guard_never_turns_a_denial_into_an_allow(
    scenario: Scenario, data: st.DataObject
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


def _code_after_a_fault(scenario: Scenario, kind: FaultyKind, name: str) -> ErrorCode | None:
    """A raising wrapper's defect is a result the post-execute waterfall sees (and may replace
    or block); a raising pre or post listener is a defect at the boundary."""
    if kind != "wrap":
        return ErrorCode.UNEXPECTED_ERROR
    match scenario.post.get(name, "next"):
        case "value":
            return None
        case "block":
            return ErrorCode.BLOCKED
        case _:
            return ErrorCode.UNEXPECTED_ERROR


@given(scenarios(timing_free=True), st.data())
def test_a_raising_listener_never_loses_a_result(scenario: Scenario, data: st.DataObject) -> None:
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
