"""The routes of one call give the same result: a plain tool in a scope with no hooks takes the
plain route (`_plain_call`), a call with no hook before or around its body is dispatched at once
(`started_call`, no coroutine when nothing waits), a call with hooks runs the whole policy in a
coroutine. Here a pass-through result observer sends the same call down the hook-free route, a
pass-through guard or pre-execute listener down the hooked one, over varied tools, arguments,
outputs and signals; and the sync interpreter (which starts calls eagerly) agrees with the
deterministic one (which runs the program's coroutine). A defect's traceback names the frames
of its route: it is left out of the comparison."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, TypedDict

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, Description
from toolfx.core.tools import (
    Allow,
    ContextMessage,
    ErrorCode,
    Output,
    OutputLimits,
    PreToolDecision,
    TextBlock,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolFailure,
    ToolRunContext,
    WithContent,
    define_tool,
)
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import DeterministicInterpreter, MemorySpills


class Pair(TypedDict):
    a: int
    b: int


OUTCOMES = (
    "sum",
    "text",  # a str where the output type is int: INVALID_TOOL_OUTPUT
    "long",  # a long str (output type str): over the tool's small limits, cut and spilled
    "raise",
    "failure",
    "not a tool failure",
    "with content",
    "bad block",
    "deferred",
    "deferred, a plain value",
    "concludes",
    "async",
    "reads the execution",
    "cancels",  # the caller's signal set while the body runs: ABORTED
    "attaches meta",
    "unrenderable",  # an int over Python's lowered digit limit: the default renderer raises
)

UNRENDERABLE_DIGITS = 640
"""The lowest digit limit Python allows; "unrenderable" runs under it with a longer int."""


def body_of(outcome: str) -> Any:
    """A body giving `outcome` for its arguments."""

    def body(args: Pair, ctx: ToolRunContext) -> object:
        total = args["a"] + args["b"]
        if outcome == "sum":
            return total
        if outcome == "text":
            return str(total)
        if outcome == "long":
            return "\n".join(str(n) for n in range(total % 50 + 10))
        if outcome == "raise":
            raise ValueError(f"no sum for {total}")
        if outcome == "failure":
            return Failure(ToolFailure(f"refused {total}"))
        if outcome == "not a tool failure":
            return Failure(total)
        if outcome == "with content":
            return WithContent(total, (TextBlock(f"the sum is {total}"),))
        if outcome == "bad block":
            return WithContent(total, ("not a block",))  # type: ignore[arg-type]
        if outcome == "deferred":
            ctx.defer_context(ContextMessage((TextBlock("noted"),), "test"))
            return Success(total)
        if outcome == "deferred, a plain value":
            ctx.defer_context(ContextMessage((TextBlock("noted"),), "test"))
            return total
        if outcome == "concludes":
            ctx.conclude_turn()
            return total
        if outcome == "cancels":
            ctx.signal.cancel("stopped meanwhile")
            return total
        if outcome == "attaches meta":
            ctx.attach_meta({"sum": total})  # type: ignore[attr-defined]  # (the transport's)
            return total
        if outcome == "unrenderable":
            return 10 ** (UNRENDERABLE_DIGITS + 1) + total
        if outcome == "reads the execution":
            return total if (ctx.root_call_id, ctx.agent) == (ctx.call_id, None) else -1
        raise AssertionError(outcome)

    async def later(args: Pair, ctx: ToolRunContext) -> int:
        return args["a"] + args["b"]

    return later if outcome == "async" else body


def location(outcome: str, hook: str) -> Location:
    """One tool `t` with the given outcome, under no hook or a pass-through one."""
    place = Location()
    output: Any = Output(str) if outcome == "long" else Output(int)
    place.register(
        define_tool(
            name="t",
            description="t",
            parameters=Pair,
            output=output,
            execute=body_of(outcome),
            output_limits=OutputLimits(lines=5, bytes=4096),
            is_concurrency_safe=True,  # (a batch of its calls is one parallel run)
        )
    )
    if hook == "observer":
        place.on_result(lambda execution, result: None)
    elif hook == "guard":
        place.guard(lambda execution: None)
    elif hook == "pre-execute":

        async def allow(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Allow()

        place.on_pre_execute(allow)
    return place


def run(
    outcome: str,
    hook: str,
    arguments: object,
    cancelled: bool,
    *,
    eager: bool,
    batched: bool = False,
) -> object:
    """The call's result; `batched`: as the first of a parallel run of two (kept as it is
    final, with the arguments its scheduling decoded), its sibling a call of its own."""
    signal = CancelSignal()
    if cancelled:
        signal.cancel("stop")
    catalog = location(outcome, hook).catalog()
    call = ToolCall("c", "t", arguments, signal)
    description: Description[ToolExecutionResult] = (
        execute_batch(
            catalog, [call, ToolCall("d", "t", arguments, CancelSignal())], limit=None
        ).map(lambda batch: batch.results[0])
        if batched
        else execute(catalog, call)
    )
    result: ToolExecutionResult
    digits = sys.get_int_max_str_digits()
    if outcome == "unrenderable":
        sys.set_int_max_str_digits(UNRENDERABLE_DIGITS)
    try:
        if eager:
            result = run_sync(description, SyncRuntime(spills=MemorySpills()))
        else:
            result = DeterministicInterpreter(seed=0, spills=MemorySpills()).run(description)
    finally:
        sys.set_int_max_str_digits(digits)
    return without_traceback(result)


def without_traceback(result: ToolExecutionResult) -> ToolExecutionResult:
    """`result` with a defect's traceback (which names its route's frames) taken out."""
    if not isinstance(result, ToolExecutionFailure):
        return result
    details = result.error.info.details
    if not isinstance(details, dict) or "traceback" not in details:
        return result
    info = dataclasses.replace(
        result.error.info, details={k: v for k, v in details.items() if k != "traceback"}
    )
    return dataclasses.replace(result, error=dataclasses.replace(result.error, info=info))


ARGUMENTS = st.one_of(
    st.fixed_dictionaries({"a": st.integers(-1000, 1000), "b": st.integers(-1000, 1000)}),
    st.fixed_dictionaries({"a": st.text(max_size=3), "b": st.integers()}),  # invalid
    st.just({"a": 1}),  # missing b
    st.just([1, 2]),
)


@settings(max_examples=200, deadline=None)
@given(
    outcome=st.sampled_from(OUTCOMES),
    arguments=ARGUMENTS,
    cancelled=st.booleans(),
    hook=st.sampled_from(("observer", "guard", "pre-execute")),
)
def test_the_hooked_route_gives_what_the_plain_route_gives(
    outcome: str, arguments: object, cancelled: bool, hook: str
) -> None:
    plain = run(outcome, "none", arguments, cancelled, eager=True)
    assert run(outcome, hook, arguments, cancelled, eager=True) == plain
    assert run(outcome, "none", arguments, cancelled, eager=False) == plain
    assert run(outcome, "none", arguments, cancelled, eager=False, batched=True) == plain
    assert run(outcome, hook, arguments, cancelled, eager=False, batched=True) == plain


def test_each_outcome_is_what_it_says() -> None:
    """The outcomes above reach the cases they name (so the property compares those)."""
    codes = {
        outcome: getattr(
            getattr(run(outcome, "none", {"a": 1, "b": 2}, False, eager=True), "error", None),
            "info",
            None,
        )
        for outcome in OUTCOMES
    }
    assert codes["sum"] is None
    assert codes["text"].code is ErrorCode.INVALID_TOOL_OUTPUT  # type: ignore[union-attr]
    assert codes["raise"].code is ErrorCode.UNEXPECTED_ERROR  # type: ignore[union-attr]
    assert codes["bad block"].code is ErrorCode.INVALID_TOOL_OUTPUT  # type: ignore[union-attr]
    assert codes["cancels"].code is ErrorCode.ABORTED  # type: ignore[union-attr]
    assert codes["unrenderable"].code is ErrorCode.UNEXPECTED_ERROR  # type: ignore[union-attr]
    unrenderable = run("unrenderable", "none", {"a": 1, "b": 2}, False, eager=True)
    assert "rendering the result of `t`" in unrenderable.error.message  # type: ignore[attr-defined]
    with_meta = run("attaches meta", "none", {"a": 1, "b": 2}, False, eager=True)
    assert with_meta.meta == {"sum": 3}  # type: ignore[attr-defined]
    cut = run("long", "none", {"a": 1, "b": 2}, False, eager=True)
    assert "output cut" in cut.content[0].text  # type: ignore[attr-defined]
