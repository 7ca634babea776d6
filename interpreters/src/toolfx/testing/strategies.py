"""Hypothesis strategies for tools, calls, batches and policies, to test pipelines and runtimes.

What is drawn is a specification (a frozen value hypothesis can show and shrink); each builds the
real thing afresh when asked, since cancellation signals are mutable:

- `tool_specs`: a tool's parameters (one of a few shapes, all with a `text` field its body
  echoes), its output (that text, or an `EchoRecord` of it), its body (succeed, fail with a
  typed `ToolFailure`, raise; after a checkpoint and a virtual sleep that ignores, watches or
  catches the call's signal), its timeout and whether it may run in parallel.
  `ToolSpec.define` makes the `ToolDefinition`.
- `call_specs`: calls with valid arguments (huge strings too, within the JSON limits) or hostile
  ones (wrong types, NaN and infinities, nesting deeper than the limit, unknown fields, no
  object at all), and calls of tools nobody registered. `CallSpec.call` makes the `ToolCall`.
- `policy_specs`: pre-execute decisions (Allow, Deny, Ask, pass on), guards, execution wrappers
  that pass the signal through or replace it, post-execute decisions (Accept, ReplaceContent,
  ReplaceValue, Block, pass on). `PolicySpec.register` adds them to a `Location`.
- `batch_scenarios`: a turn: tools, calls by name (exclusive and parallel-safe tools mixed),
  policies, scripted approvals, a parallel limit, cancellations at scheduler steps, and a seed
  for `DeterministicInterpreter`. `approval_replies` draws one scripted reply.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NotRequired, Protocol, TypedDict, TypeVar, final

from returns.result import Failure, Result, Success

from toolfx.core.pipeline import ToolCall
from toolfx.core.registry import Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, Cancelled, CancelSignal
from toolfx.core.tools import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    Output,
    PostToolDecision,
    PreToolDecision,
    ReplaceContent,
    ReplaceValue,
    ToolDefinition,
    ToolExecution,
    ToolExecutionResult,
    ToolFailure,
    ToolRunContext,
    define_tool,
    text,
)
from toolfx.interpreters.testing import CancelAt
from toolfx.testing._extra import missing_extra

try:
    from hypothesis import strategies as st
except ImportError as _missing:
    raise missing_extra(__name__, _missing) from _missing

__all__ = [
    "OUTPUT_SHAPES",
    "PARAMETER_SHAPES",
    "UNKNOWN_TOOL",
    "BatchScenario",
    "BodyObserver",
    "CallSpec",
    "EchoRecord",
    "Outcome",
    "OutputShape",
    "ParameterShape",
    "PolicySpec",
    "PostChoice",
    "PreChoice",
    "ToolSpec",
    "Watch",
    "WrapChoice",
    "approval_replies",
    "batch_scenarios",
    "call_specs",
    "hostile_arguments",
    "policy_specs",
    "tool_specs",
    "valid_arguments",
]

Outcome = Literal["ok", "fail", "raise"]
"""What a body does at the end: return its `text`, return a typed failure, or raise."""

Watch = Literal["ignore", "watch", "catch"]
"""How a body sleeps: deaf to its signal, woken by it (`Cancelled`), or catching that and
returning `"stopped"`."""

ParameterShape = Literal["text", "counted", "tagged", "noted"]
"""A tool's parameters: `text` alone, or with a `count`, a list of `tags`, or an optional `note`."""

OutputShape = Literal["text", "record"]
"""What a successful body yields: its `text`, or an `EchoRecord` of it."""

PreChoice = Literal["allow", "deny", "ask", "next"]
"""A pre-execute listener's decision for a tool (`next`: ask the next listener)."""

PostChoice = Literal["accept", "content", "value", "block", "next"]
"""A post-execute listener's decision for a tool (`next`: ask the next listener)."""

WrapChoice = Literal["none", "pass", "replace"]
"""No execution wrapper, one that passes the call's signal on, or one that replaces it."""

UNKNOWN_TOOL: Final = "nope"
"""A tool name no strategy registers."""

HUGE_TEXT: Final = 100_000
"""The longest text drawn: large, far within the JSON size limit."""

TOO_DEEP: Final = 200
"""A nesting depth over the default JSON depth limit (128)."""

PARAMETER_SHAPES: Final[tuple[ParameterShape, ...]] = ("text", "counted", "tagged", "noted")
"""Every parameter shape."""

OUTPUT_SHAPES: Final[tuple[OutputShape, ...]] = ("text", "record")
"""Every output shape."""


class _TextArgs(TypedDict):
    text: str


class _CountedArgs(_TextArgs):
    count: int


class _TaggedArgs(_TextArgs):
    tags: list[str]


class _NotedArgs(_TextArgs):
    note: NotRequired[str]


class EchoRecord(TypedDict):
    """A `record` tool's output: the text it was given and its length."""

    text: str
    length: int


_ArgsT = TypeVar("_ArgsT", bound=_TextArgs)
_OutT = TypeVar("_OutT")

_PARAMETERS: Final[Mapping[ParameterShape, type[_TextArgs]]] = {
    "text": _TextArgs,
    "counted": _CountedArgs,
    "tagged": _TaggedArgs,
    "noted": _NotedArgs,
}


class BodyObserver(Protocol):
    """Sees each body start and end: to count overlaps, check exclusivity, collect time spans."""

    def enter(self, call_id: str, exclusive: bool) -> None:
        """A body starts; `exclusive` unless its tool is parallel-safe."""
        ...

    def leave(self, call_id: str, started: float, ended: float) -> None:
        """A body ends, with its start and end on the runtime's clock."""
        ...


@final
@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A drawn tool: its name, parameters, what its body does, its timeout and parallel safety."""

    name: str
    outcome: Outcome
    seconds: float
    watch: Watch
    safe: bool
    timeout: float | None
    shape: ParameterShape = "text"
    output: OutputShape = "text"

    def define(
        self, observer: BodyObserver | None = None
    ) -> ToolDefinition[Any, str] | ToolDefinition[Any, EchoRecord]:
        """The tool: its body reports to `observer`, if any."""
        parameters = _PARAMETERS[self.shape]
        if self.output == "record":
            return _defined(self, parameters, Output(EchoRecord), _record, observer)
        return _defined(self, parameters, Output(str), str, observer)

    def value(self, text: str) -> str | EchoRecord:
        """What the body yields when it succeeds on arguments whose `text` is `text`."""
        return _record(text) if self.output == "record" else text

    def arguments(self, text: str) -> dict[str, object]:
        """Valid arguments for this tool whose body echoes `text`."""
        return _arguments(self.shape, text)


def _record(text: str) -> EchoRecord:
    return {"text": text, "length": len(text)}


def _defined(
    spec: ToolSpec,
    parameters: type[_ArgsT],
    output: Output[_ArgsT, _OutT],
    echo: Callable[[str], _OutT],
    observer: BodyObserver | None,
) -> ToolDefinition[_ArgsT, _OutT]:
    async def body(args: _ArgsT, ctx: ToolRunContext) -> Result[_OutT, ToolFailure]:
        runtime = ctx.runtime
        if observer is not None:
            observer.enter(ctx.call_id, not spec.safe)
        started = runtime.now()
        try:
            await runtime.checkpoint()
            if spec.seconds:
                if spec.watch == "ignore":
                    await runtime.sleep(spec.seconds)
                elif spec.watch == "watch":
                    await runtime.sleep(spec.seconds, ctx.signal)
                else:
                    try:
                        await runtime.sleep(spec.seconds, ctx.signal)
                    except Cancelled:
                        return Success(echo("stopped"))
            if spec.outcome == "fail":
                return Failure(ToolFailure(f"{spec.name} refuses"))
            if spec.outcome == "raise":
                raise RuntimeError(f"{spec.name} broke")
            return Success(echo(args["text"]))
        finally:
            if observer is not None:
                observer.leave(ctx.call_id, started, runtime.now())

    return define_tool(
        name=spec.name,
        description=f"{spec.name}: {spec.outcome} after {spec.seconds:g}s",
        parameters=parameters,
        output=output,
        execute=body,
        timeout=spec.timeout,
        is_concurrency_safe=_always if spec.safe else None,
    )


def _always(args: object) -> bool:
    return True


def _arguments(shape: ParameterShape, text: str) -> dict[str, object]:
    match shape:
        case "text" | "noted":
            return {"text": text}
        case "counted":
            return {"text": text, "count": 1}
        case "tagged":
            return {"text": text, "tags": ["a"]}


def tool_specs(
    name: str,
    shapes: Sequence[ParameterShape] = PARAMETER_SHAPES,
    outputs: Sequence[OutputShape] = OUTPUT_SHAPES,
) -> st.SearchStrategy[ToolSpec]:
    """Tools named `name` with parameters of one of `shapes`, an output of one of `outputs`;
    any body, timeout and parallel safety."""
    return st.builds(
        ToolSpec,
        name=st.just(name),
        outcome=st.sampled_from(["ok", "fail", "raise"]),
        seconds=st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        watch=st.sampled_from(["ignore", "watch", "catch"]),
        safe=st.booleans(),
        timeout=st.sampled_from([None, None, 0.75, 2.0]),
        shape=st.sampled_from(shapes),
        output=st.sampled_from(outputs),
    )


# ---------------------------------------------------------------------------------------------
# Calls


@final
@dataclass(frozen=True, slots=True)
class CallSpec:
    """A drawn call: the tool's name, its arguments, and whether they fit the tool's parameters."""

    tool: str
    arguments: object
    valid: bool
    """Whether the arguments fit the tool's parameters (an unknown tool's: a `text` tool's)."""

    def call(self, call_id: str) -> ToolCall:
        """The call, with a fresh signal."""
        return ToolCall(call_id, self.tool, self.arguments, CancelSignal())


def _texts() -> st.SearchStrategy[str]:
    huge = st.integers(1_000, HUGE_TEXT).map(lambda size: "x" * size)
    return st.text(max_size=20) | huge


def valid_arguments(shape: ParameterShape) -> st.SearchStrategy[dict[str, object]]:
    """Arguments that fit `shape`: any text, sometimes huge (within the JSON limits)."""
    fields: dict[str, st.SearchStrategy[object]] = {"text": _texts()}
    optional: dict[str, st.SearchStrategy[object]] = {}
    match shape:
        case "counted":
            fields["count"] = st.integers()
        case "tagged":
            fields["tags"] = st.lists(st.text(max_size=5), max_size=3)
        case "noted":
            optional["note"] = st.text(max_size=10)
        case "text":
            pass
    return st.fixed_dictionaries(fields, optional=optional)


def _nested(depth: int) -> object:
    value: object = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def hostile_arguments(shape: ParameterShape) -> st.SearchStrategy[object]:
    """Arguments that do not fit `shape`: wrong types, non-finite numbers, too deep, unknown
    fields, a missing `text`, or no object at all."""
    valid = valid_arguments(shape)
    not_finite = st.sampled_from([math.nan, math.inf, -math.inf])
    wrong = st.integers() | st.booleans() | st.none() | st.lists(st.integers(), max_size=2)
    return st.one_of(
        st.builds(lambda args, bad: {**args, "text": bad}, valid, wrong | not_finite),
        st.builds(lambda args, bad: {**args, "extra": bad}, valid, not_finite),
        st.builds(lambda args: {**args, "text": _nested(TOO_DEEP)}, valid),
        st.builds(lambda args, depth: {**args, "extra": _nested(depth)}, valid, st.integers(1, 8)),
        valid.map(lambda args: {key: value for key, value in args.items() if key != "text"}),
        wrong | st.text(max_size=5),
    )


def call_specs(tools: Sequence[ToolSpec]) -> st.SearchStrategy[CallSpec]:
    """Calls of `tools` with valid or hostile arguments, and calls of `UNKNOWN_TOOL`."""
    known = [
        st.builds(CallSpec, st.just(spec.name), arguments, st.just(valid))
        for spec in tools
        for arguments, valid in (
            (valid_arguments(spec.shape), True),
            (hostile_arguments(spec.shape), False),
        )
    ]
    unknown = st.builds(CallSpec, st.just(UNKNOWN_TOOL), valid_arguments("text"), st.just(True))
    return st.one_of(*known, unknown)


# ---------------------------------------------------------------------------------------------
# Policies


def approval_replies() -> st.SearchStrategy[ApprovalReply]:
    """Scripted approval replies, mostly `allowed-once`."""
    return st.sampled_from(
        ["allowed-once", "allowed-once", "allowed-once", "rejected", "cancelled", "unavailable"]
    )


@final
@dataclass(frozen=True, slots=True)
class PolicySpec:
    """Drawn policies: pre-execute and post-execute choices per tool, guarded tools, a wrapper."""

    pre: Mapping[str, PreChoice]
    guarded: frozenset[str]
    wrap: WrapChoice
    post: Mapping[str, PostChoice]

    def register(self, location: Location) -> None:
        """Add a pre-execute listener, a guard, the wrapper (if any) and a post-execute listener."""
        location.on_pre_execute(self._pre)
        location.guard(self._guard)
        if self.wrap != "none":
            location.wrap_execute(self._wrap)
        location.on_post_execute(self._post)

    async def _pre(
        self, execution: ToolExecution, next_: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        match self.pre.get(execution.name, "next"):
            case "allow":
                return Allow()
            case "deny":
                return Deny(f"no {execution.name}")
            case "ask":
                return Ask(f"{execution.name} needs approval")
            case "next":
                return await next_()

    def _guard(self, execution: ToolExecution) -> str | None:
        return f"{execution.name} is guarded" if execution.name in self.guarded else None

    async def _wrap(
        self,
        execution: ToolExecution,
        next_: Callable[[ToolExecution], Awaitable[ToolExecutionResult]],
    ) -> ToolExecutionResult:
        if self.wrap == "replace":
            return await next_(execution.with_signal(CancelSignal()))
        return await next_(execution)

    async def _post(
        self,
        execution: ToolExecution,
        result: ToolExecutionResult,
        next_: Callable[[], Awaitable[PostToolDecision]],
    ) -> PostToolDecision:
        match self.post.get(execution.name, "next"):
            case "accept":
                return Accept()
            case "content":
                return ReplaceContent(text("replaced"))
            case "value":
                return ReplaceValue("replaced")
            case "block":
                return Block(text(f"{execution.name} blocked"))
            case "next":
                return await next_()


def policy_specs(names: Sequence[str]) -> st.SearchStrategy[PolicySpec]:
    """Policies over the tools `names`: each tool's decisions drawn, at most one guarded."""
    pre: st.SearchStrategy[PreChoice] = st.sampled_from(
        ["allow", "deny", "ask", "ask", "next", "next"]
    )
    post: st.SearchStrategy[PostChoice] = st.sampled_from(
        ["accept", "content", "value", "block", "next", "next"]
    )
    tools = st.sampled_from(names)
    return st.builds(
        PolicySpec,
        pre=st.dictionaries(tools, pre),
        guarded=st.frozensets(tools, max_size=1),
        wrap=st.sampled_from(["none", "pass", "replace"]),
        post=st.dictionaries(tools, post),
    )


# ---------------------------------------------------------------------------------------------
# Batches


@final
@dataclass(frozen=True, slots=True)
class BatchScenario:
    """A drawn turn: tools, calls by tool name, policies, approvals, limit, cancels and seed."""

    tools: tuple[ToolSpec, ...]
    calls: tuple[str, ...]
    policy: PolicySpec
    script: tuple[ApprovalReply, ...] | None
    """Scripted replies in order, or None: approve the calls in `approved` (timing-free)."""
    approved: frozenset[int]
    limit: int
    cancels: tuple[tuple[int, int], ...]
    """(scheduler step, call index): cancel that call's signal at that step."""
    precancelled: frozenset[int]
    seed: int

    def register(self, location: Location, observer: BodyObserver | None = None) -> None:
        """Register the tools (their bodies report to `observer`) and then the policies."""
        for spec in self.tools:
            location.register(spec.define(observer))
        self.policy.register(location)

    def tool_calls(self) -> list[ToolCall]:
        """The calls `c0`, `c1`...: each body echoes its call's id; fresh signals, some set."""
        specs = {spec.name: spec for spec in self.tools}
        calls = [
            ToolCall(
                f"c{i}",
                name,
                specs[name].arguments(f"c{i}") if name in specs else {"text": f"c{i}"},
                CancelSignal(),
            )
            for i, name in enumerate(self.calls)
        ]
        for index in self.precancelled:
            calls[index].signal.cancel("cancelled up front")
        return calls

    def cancel_faults(self, calls: Sequence[ToolCall]) -> list[CancelAt]:
        """The cancellations at scheduler steps, for `DeterministicInterpreter`'s faults."""
        return [CancelAt(step, calls[index].signal) for step, index in self.cancels]

    def approvals(
        self,
    ) -> Sequence[ApprovalReply] | Callable[[ApprovalRequest], ApprovalReply]:
        """The script, or a callback approving exactly the calls in `approved`."""
        if self.script is not None:
            return self.script
        approved = self.approved

        def by_call(request: ApprovalRequest) -> ApprovalReply:
            return "allowed-once" if int(request.call_id[1:]) in approved else "rejected"

        return by_call


@st.composite
def _batch_scenarios(
    draw: st.DrawFn, timing_free: bool, shapes: Sequence[ParameterShape]
) -> BatchScenario:
    names = [f"t{i}" for i in range(draw(st.integers(1, 4)))]
    tools = tuple(draw(tool_specs(name, shapes, ("text",))) for name in names)
    calls = tuple(
        draw(
            st.lists(
                st.sampled_from([*names, *names, *names, UNKNOWN_TOOL]), min_size=1, max_size=7
            )
        )
    )
    indexes = st.integers(0, len(calls) - 1)
    return BatchScenario(
        tools=tools,
        calls=calls,
        policy=draw(policy_specs(names)),
        script=None if timing_free else tuple(draw(st.lists(approval_replies(), max_size=8))),
        approved=draw(st.frozensets(indexes)),
        limit=draw(st.integers(1, 4)),
        cancels=()
        if timing_free
        else tuple(draw(st.lists(st.tuples(st.integers(1, 40), indexes), max_size=2))),
        precancelled=draw(st.frozensets(indexes, max_size=1)),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def batch_scenarios(
    *, timing_free: bool = False, shapes: Sequence[ParameterShape] = PARAMETER_SHAPES
) -> st.SearchStrategy[BatchScenario]:
    """Turns of 1 to 7 calls over 1 to 4 text-output tools (and the unknown one); `timing_free`:
    no script and no cancellations, so outcomes do not depend on the interleaving."""
    return _batch_scenarios(timing_free, shapes)
