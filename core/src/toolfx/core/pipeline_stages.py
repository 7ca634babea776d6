"""The policy stages of one call, around the tool's body (the order is `pipeline`'s).

Before the body: the pre-execute waterfall (allow, deny, or ask the runtime for approval). Around
it: the execute wrappers, the definition's timeout innermost. After it: the post-execute
waterfall, `finalize_content` once, then the result observers. A stage with no hooks is never
entered: `pipeline` skips it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from toolfx.core.cancel import CancelSignal
from toolfx.core.catalog import HookPlan
from toolfx.core.content import ContentBlock, ContextMessage
from toolfx.core.dispatch import CallState, dispatch, success_of
from toolfx.core.execution import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    ExecuteWrapper,
    PostExecuteListener,
    PostToolDecision,
    PreExecuteListener,
    PreToolDecision,
    ReplaceContent,
    ReplaceValue,
    ResultObserver,
    ToolExecution,
)
from toolfx.core.failure import CALL_FAILURES, ErrorCode, ToolErrorInfo, ToolFailure
from toolfx.core.materialize import materialized
from toolfx.core.outcomes import aborted, defect, failed, raised
from toolfx.core.registry_model import Registration
from toolfx.core.results import ToolExecutionFailure, ToolExecutionResult, ToolExecutionSuccess
from toolfx.core.runtime import ApprovalRequest, RejectedWithFeedback, Runtime
from toolfx.core.tool import ToolDefinition

__all__ = [
    "aborted_execution",
    "execute_wrapped",
    "finalized",
    "observe",
    "post_execute",
    "pre_execute",
    "with_contexts",
]


async def pre_execute(
    runtime: Runtime, plan: HookPlan, registration: Registration, execution: ToolExecution
) -> ToolExecutionFailure | None:
    """The pre-execute waterfall: None to go on, or why not (denied, not approved, cancelled)."""
    decision = await _waterfall_pre(plan.pre_execute, execution, 0)
    match decision:
        case Allow():
            refusal = None
        case Deny(reason=reason):
            refusal = failed(ErrorCode.DENIED, f"Denied: {reason}")
        case Ask(reason=reason):
            refusal = await _ask(runtime, registration, execution, reason)
    if refusal is None and execution.signal.is_cancelled():
        return aborted(execution.name, execution.signal.reason, body_started=False)
    return refusal


async def _waterfall_pre(
    listeners: tuple[PreExecuteListener, ...], execution: ToolExecution, index: int
) -> PreToolDecision:
    if index == len(listeners):
        return Allow()

    async def next_decision() -> PreToolDecision:
        return await _waterfall_pre(listeners, execution, index + 1)

    return await listeners[index](execution, next_decision)


async def _ask(
    runtime: Runtime, registration: Registration, execution: ToolExecution, reason: str | None
) -> ToolExecutionFailure | None:
    why = f" ({reason})" if reason else ""
    if execution.agent is None:
        return failed(ErrorCode.DENIED, f"Denied: approval needed{why}, and no agent to ask for")
    request = ApprovalRequest(
        call_id=execution.call_id,
        tool=execution.name,
        agent=execution.agent,
        permission=registration.permission,
        patterns=("*",),
        reason=reason,
        arguments=execution.arguments,
    )
    try:
        reply = await runtime.approve(request, execution.signal)
    except Exception as error:  # the approval service broke: not approved, and not the policy's bug
        return defect(error, f"the approval service (asked about `{execution.name}`)")
    if reply == "allowed-once":
        return None
    if isinstance(reply, RejectedWithFeedback):
        return failed(ErrorCode.DENIED, f"Denied{why}; the user said: {reply.feedback}")
    return failed(ErrorCode.DENIED, f"Denied: approval needed{why}; the answer was {reply}")


async def execute_wrapped(
    runtime: Runtime,
    plan: HookPlan,
    definition: ToolDefinition[Any, Any],
    execution: ToolExecution,
    state: CallState,
) -> ToolExecutionResult:
    """Dispatch the body inside the execute wrappers, the definition's timeout innermost."""
    caller = execution.signal
    following = [caller]  # signals set whenever the caller's is: the timeout's own fusions

    async def body(passed: ToolExecution) -> ToolExecutionResult:
        if passed.signal is caller:
            return await _dispatch_unless_cancelled(runtime, definition, execution, state)
        if any(known is passed.signal for known in following):  # already follows the caller
            following_call = execution.with_signal(passed.signal)
            return await _dispatch_unless_cancelled(runtime, definition, following_call, state)
        signal = CancelSignal.fused(caller, passed.signal)  # a wrapper cannot detach the caller
        try:
            fused = execution.with_signal(signal)
            return await _dispatch_unless_cancelled(runtime, definition, fused, state)
        finally:
            signal.release()

    chain: Callable[[ToolExecution], Awaitable[ToolExecutionResult]] = body
    if definition.timeout is not None:
        chain = _timeout_wrapper(runtime, definition.timeout, chain, following)
    for wrapper in reversed(plan.execute):
        chain = _wrapped(wrapper, chain)
    return await chain(execution)


async def _dispatch_unless_cancelled(
    runtime: Runtime,
    definition: ToolDefinition[Any, Any],
    execution: ToolExecution,
    state: CallState,
) -> ToolExecutionResult:
    if execution.signal.is_cancelled():  # a wrapper (or its timeout) may have waited
        return aborted_execution(execution, state)
    return await dispatch(runtime, definition, execution, state)


def _wrapped(
    wrapper: ExecuteWrapper, inner: Callable[[ToolExecution], Awaitable[ToolExecutionResult]]
) -> Callable[[ToolExecution], Awaitable[ToolExecutionResult]]:
    async def call(passed: ToolExecution) -> ToolExecutionResult:
        try:  # the next wrapper out (and post-execute) sees a result, never this one's raise
            result: object = await wrapper(passed, inner)
        except BaseException as error:
            failure = raised(error, f"an execute wrapper of `{passed.name}`")
            if failure is None:  # an interrupt: never caught
                raise
            return failure
        return materialized(result, passed.name)  # what it built may be shared or not JSON

    return call


def _timeout_wrapper(
    runtime: Runtime,
    seconds: float,
    inner: Callable[[ToolExecution], Awaitable[ToolExecutionResult]],
    following: list[CancelSignal],
) -> Callable[[ToolExecution], Awaitable[ToolExecutionResult]]:
    """The definition's timeout around `inner`; its signal joins `following` when the one it
    fuses follows the caller's (so the body needs no second fusion)."""

    async def call(passed: ToolExecution) -> ToolExecutionResult:
        deadline = CancelSignal()
        fused = CancelSignal.fused(passed.signal, deadline)
        if any(known is passed.signal for known in following):
            following.append(fused)
        try:
            result = await runtime.deadline(
                seconds, deadline, lambda: inner(passed.with_signal(fused))
            )
        finally:
            fused.release()
        if deadline.is_cancelled() and not passed.signal.is_cancelled():
            return failed(ErrorCode.TOOL_TIMEOUT, f"`{passed.name}` timed out after {seconds}s")
        return result

    return call


async def post_execute(
    plan: HookPlan,
    registration: Registration,
    execution: ToolExecution,
    result: ToolExecutionResult,
    state: CallState,
) -> ToolExecutionResult:
    """The result as the post-execute waterfall leaves it: accepted, replaced or blocked."""
    decision = await _waterfall_post(plan.post_execute, execution, result, 0)
    added = decision.additional_contexts
    contexts = (*result.additional_contexts, *added)  # the listener may have given a list
    match decision:
        case Accept():
            return _replaced(result, result.content, contexts) if added else result
        case ReplaceContent(content=content):
            return _replaced(result, content, contexts)
        case ReplaceValue(value=value):
            definition = registration.definition
            checked = definition.output.schema.decode_or_failure(value)
            replaced = success_of(definition, execution, state.args, checked, state)
            return _replaced(replaced, replaced.content, contexts)
        case Block(feedback=feedback):
            failure = ToolFailure(_text_of(feedback), ToolErrorInfo(ErrorCode.BLOCKED))
            return ToolExecutionFailure(failure, feedback, result.meta, contexts)


def _replaced(
    result: ToolExecutionResult,
    content: tuple[ContentBlock, ...],
    contexts: tuple[ContextMessage, ...],
) -> ToolExecutionResult:
    """`dataclasses.replace(result, content=..., additional_contexts=...)`, built directly."""
    if isinstance(result, ToolExecutionSuccess):
        return ToolExecutionSuccess(
            result.value, content, result.meta, contexts, result.concludes_turn
        )
    return ToolExecutionFailure(result.error, content, result.meta, contexts)


async def _waterfall_post(
    listeners: tuple[PostExecuteListener, ...],
    execution: ToolExecution,
    result: ToolExecutionResult,
    index: int,
) -> PostToolDecision:
    if index == len(listeners):
        return Accept()

    async def next_decision() -> PostToolDecision:
        return await _waterfall_post(listeners, execution, result, index + 1)

    return await listeners[index](execution, result, next_decision)


def _text_of(feedback: tuple[Any, ...]) -> str:
    texts = [getattr(block, "text", "") for block in feedback]
    return " ".join(t for t in texts if t) or "Blocked by policy."


def aborted_execution(execution: ToolExecution, state: CallState) -> ToolExecutionFailure:
    """This execution, cancelled: ABORTED once its body started, ABORTED_BEFORE_DISPATCH before."""
    return aborted(execution.name, execution.signal.reason, body_started=state.body_started)


def finalized(
    runtime: Runtime,
    registration: Registration,
    execution: ToolExecution,
    result: ToolExecutionResult,
) -> ToolExecutionResult:
    """The result with the content its `finalize_content` gives (kept if the callback fails)."""
    finalize = registration.definition.finalize_content
    if finalize is None:
        return result
    try:
        content = finalize(execution, result)
        if content is None:
            return result
        blocks = tuple(content)  # what it returned may still be held (and changed) by it
    except CALL_FAILURES as error:  # the callback must be total; keep the content if it is not
        runtime.report(error, f"finalize_content of `{execution.name}`")
        return result
    return _replaced(result, blocks, result.additional_contexts)


def with_contexts(
    result: ToolExecutionResult, deferred: tuple[ContextMessage, ...]
) -> ToolExecutionResult:
    """The result carrying each deferred context message it does not carry yet (in order)."""
    carried = result.additional_contexts
    missing = tuple(m for m in deferred if not any(m is c for c in carried))
    return _replaced(result, result.content, missing + carried) if missing else result


def observe(
    runtime: Runtime,
    observers: tuple[ResultObserver, ...],
    execution: ToolExecution,
    result: ToolExecutionResult,
) -> None:
    """Show the frozen result to each observer; one that raises is reported, not propagated."""
    for observer in observers:
        try:
            observer(execution, result)
        except CALL_FAILURES as error:  # contained: observers cannot change or lose a result
            runtime.report(error, f"result observer {observer!r}")
