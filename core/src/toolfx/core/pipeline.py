"""The execution pipeline for one call, as a description: exactly one frozen result, always.

Order: snapshot the arguments, resolve the tool, pre-execute waterfall (allow/deny/ask), guards,
execute waterfall around the body (the definition's timeout innermost), post-execute waterfall,
caller cancellation, `finalize_content` once, then the frozen result goes to the observers.
A listener, wrapper, guard or renderer that raises is a defect: the call fails with
UNEXPECTED_ERROR and the turn goes on. Interrupts (BaseException that is not an Exception)
are never caught.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Final, final

from toolfx.core.cancel import CancelSignal
from toolfx.core.catalog import Catalog, HookPlan
from toolfx.core.content import ContentBlock, ContextMessage
from toolfx.core.description import Description
from toolfx.core.dispatch import CallState, dispatch, success_of
from toolfx.core.execution import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    ExecuteWrapper,
    ExecutionToken,
    PostExecuteListener,
    PostToolDecision,
    PreExecuteListener,
    PreToolDecision,
    ReplaceContent,
    ReplaceValue,
    ResultObserver,
    ToolExecution,
)
from toolfx.core.failure import ErrorCode, PermissionDeclined, ToolErrorInfo, ToolFailure
from toolfx.core.json import FrozenJson, JsonError
from toolfx.core.json_snapshot import snapshot_or_error
from toolfx.core.outcomes import aborted, defect, failed
from toolfx.core.records import SessionRecord, ToolCallRecord, ToolResultRecord
from toolfx.core.registry_model import Registration
from toolfx.core.results import ToolExecutionFailure, ToolExecutionResult, ToolExecutionSuccess
from toolfx.core.runtime import ApprovalRequest, RejectedWithFeedback, Runtime
from toolfx.core.tool import ToolDefinition

__all__ = ["MAX_LISTED_TOOLS", "RecordSink", "ToolCall", "execute", "run_call"]

MAX_LISTED_TOOLS: Final = 20
"""How many visible tool names an UNKNOWN_TOOL message lists."""


@final
@dataclass(frozen=True, slots=True)
class ToolCall:
    """A caller's call: id, tool name, raw arguments and the caller-owned cancellation signal."""

    call_id: str
    name: str
    arguments: object
    signal: CancelSignal
    root_call_id: str | None = None
    parent: ExecutionToken | None = None
    parent_call_id: str | None = None


RecordSink = Callable[[SessionRecord], None]
"""Receives the durable events: `tool/call` before a call runs, `tool/result` after."""


def execute(
    catalog: Catalog, call: ToolCall, sink: RecordSink | None = None
) -> Description[ToolExecutionResult]:
    """The description of one call through the whole pipeline (inert until interpreted)."""

    def program(runtime: Runtime) -> Coroutine[Any, Any, ToolExecutionResult]:
        return run_call(runtime, catalog, call, sink)

    return Description(program)


async def run_call(
    runtime: Runtime, catalog: Catalog, call: ToolCall, sink: RecordSink | None = None
) -> ToolExecutionResult:
    """Run one call through the pipeline and give its frozen result (never raises an error)."""
    snapshot = snapshot_or_error(call.arguments)
    problem = snapshot if isinstance(snapshot, JsonError) else None
    arguments: FrozenJson = None if problem is not None else snapshot
    execution = ToolExecution(  # positional: the fastest way to build it
        call.call_id,
        call.root_call_id or call.call_id,
        call.name,
        arguments,
        catalog.scope,
        ExecutionToken(),
        call.signal,
        call.parent,
    )
    if sink is not None:
        sink(ToolCallRecord.of(execution, call.parent_call_id))
    direct = call.parent is None  # Code Mode: a model-direct call reaches only native tools
    view = catalog.view
    registration = (view.direct if direct else view.tools).get(call.name)
    plan = view.plan
    state = CallState()
    if problem is not None:
        result: ToolExecutionResult = failed(
            ErrorCode.INVALID_ARGS, f"The arguments for `{call.name}` are not JSON: {problem}"
        )
    elif registration is None:
        result = _unknown_tool(catalog, call.name, direct=direct)
    else:
        result = await _guarded_run(runtime, plan, registration, execution, state)
    if registration is not None and registration.definition.finalize_content is not None:
        result = _finalize(runtime, registration, execution, result)
    if plan.result:
        _observe(runtime, plan.result, execution, result)
    if sink is not None:
        sink(ToolResultRecord.of(execution.call_id, result))
    return result


async def _guarded_run(
    runtime: Runtime,
    plan: HookPlan,
    registration: Registration,
    execution: ToolExecution,
    state: CallState,
) -> ToolExecutionResult:
    signal = execution.signal
    if signal.is_cancelled():
        return _aborted(execution, state)
    try:  # each stage with no hooks is skipped: no coroutine, no closure for it
        if plan.pre_execute:
            refusal = await _pre_execute(runtime, plan, registration, execution)
            if refusal is not None:
                return refusal
        if plan.guards:
            state.stage = "a guard"
            for guard in plan.guards:
                reason = guard(execution)
                if reason is not None:
                    return failed(ErrorCode.DENIED, f"Denied: {reason}")
            if signal.is_cancelled():
                return _aborted(execution, state)
        definition = registration.definition
        state.stage = "an execute wrapper"
        if plan.execute or definition.timeout is not None:
            result = await _around(runtime, plan, definition, execution, state)
        else:
            result = await dispatch(runtime, definition, execution, state)
        if plan.post_execute:
            state.stage = "the post-execute policy"
            result = await _post_execute(plan, registration, execution, result, state)
    except PermissionDeclined as declined:  # travels as a defect so no leaf can swallow it
        return failed(ErrorCode.DENIED, f"Denied: {declined}")
    except Exception as error:  # the one boundary for defects: the call fails, the turn goes on
        return defect(error, f"{state.stage} of `{execution.name}`")
    if isinstance(result, ToolExecutionSuccess) and signal.is_cancelled():
        return _aborted(execution, state)
    return result


async def _pre_execute(
    runtime: Runtime, plan: HookPlan, registration: Registration, execution: ToolExecution
) -> ToolExecutionFailure | None:
    decision = await _waterfall_pre(plan.pre_execute, execution, 0)
    match decision:
        case Allow():
            refusal = None
        case Deny(reason=reason):
            refusal = failed(ErrorCode.DENIED, f"Denied: {reason}")
        case Ask(reason=reason):
            refusal = await _ask(runtime, registration, execution, reason)
    if refusal is None and execution.signal.is_cancelled():
        return _aborted(execution, CallState())
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
    reply = await runtime.approve(request, execution.signal)
    if reply == "allowed-once":
        return None
    if isinstance(reply, RejectedWithFeedback):
        return failed(ErrorCode.DENIED, f"Denied{why}; the user said: {reply.feedback}")
    return failed(ErrorCode.DENIED, f"Denied: approval needed{why}; the answer was {reply}")


async def _around(
    runtime: Runtime,
    plan: HookPlan,
    definition: ToolDefinition[Any, Any],
    execution: ToolExecution,
    state: CallState,
) -> ToolExecutionResult:
    caller = execution.signal

    async def body(passed: ToolExecution) -> ToolExecutionResult:
        if passed.signal is caller:
            return await _dispatch_unless_cancelled(runtime, definition, execution, state)
        signal = CancelSignal.fused(caller, passed.signal)  # a wrapper cannot detach the caller
        try:
            fused = execution.with_signal(signal)
            return await _dispatch_unless_cancelled(runtime, definition, fused, state)
        finally:
            signal.release()

    chain: Callable[[ToolExecution], Awaitable[ToolExecutionResult]] = body
    if definition.timeout is not None:
        chain = _timeout_wrapper(runtime, definition.timeout, chain)
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
        return _aborted(execution, state)
    return await dispatch(runtime, definition, execution, state)


def _wrapped(
    wrapper: ExecuteWrapper, inner: Callable[[ToolExecution], Awaitable[ToolExecutionResult]]
) -> Callable[[ToolExecution], Awaitable[ToolExecutionResult]]:
    async def call(passed: ToolExecution) -> ToolExecutionResult:
        return await wrapper(passed, inner)

    return call


def _timeout_wrapper(
    runtime: Runtime,
    seconds: float,
    inner: Callable[[ToolExecution], Awaitable[ToolExecutionResult]],
) -> Callable[[ToolExecution], Awaitable[ToolExecutionResult]]:
    async def call(passed: ToolExecution) -> ToolExecutionResult:
        deadline = CancelSignal()
        fused = CancelSignal.fused(passed.signal, deadline)
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


async def _post_execute(
    plan: HookPlan,
    registration: Registration,
    execution: ToolExecution,
    result: ToolExecutionResult,
    state: CallState,
) -> ToolExecutionResult:
    decision = await _waterfall_post(plan.post_execute, execution, result, 0)
    added = decision.additional_contexts
    contexts = result.additional_contexts + added
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


def _aborted(execution: ToolExecution, state: CallState) -> ToolExecutionFailure:
    return aborted(execution.name, execution.signal.reason, body_started=state.body_started)


def _unknown_tool(catalog: Catalog, name: str, *, direct: bool) -> ToolExecutionFailure:
    names = list(catalog.direct_names() if direct else catalog)
    listed = ", ".join(names[:MAX_LISTED_TOOLS]) + (" ..." if len(names) > MAX_LISTED_TOOLS else "")
    available = f" Available tools: {listed}." if names else " No tools are available."
    return failed(ErrorCode.UNKNOWN_TOOL, f"Unknown tool `{name}`.{available}")


def _finalize(
    runtime: Runtime,
    registration: Registration,
    execution: ToolExecution,
    result: ToolExecutionResult,
) -> ToolExecutionResult:
    finalize = registration.definition.finalize_content
    if finalize is None:
        return result
    try:
        content = finalize(execution, result)
    except Exception as error:  # the callback must be total; keep the content if it is not
        runtime.report(error, f"finalize_content of `{execution.name}`")
        return result
    if content is None:
        return result
    return _replaced(result, tuple(content), result.additional_contexts)


def _observe(
    runtime: Runtime,
    observers: tuple[ResultObserver, ...],
    execution: ToolExecution,
    result: ToolExecutionResult,
) -> None:
    for observer in observers:
        try:
            observer(execution, result)
        except Exception as error:  # contained: observers cannot change or lose a result
            runtime.report(error, f"result observer {observer!r}")
