"""The execution pipeline for one call, as a description: exactly one frozen result, always.

Order: snapshot the arguments, resolve the tool, pre-execute waterfall (allow/deny/ask), guards,
execute waterfall around the body (the definition's timeout innermost), post-execute waterfall,
caller cancellation, `finalize_content` once (on the materialized candidate), then the result,
materialized and frozen (materialize.py) and bounded (text over the output limits cut, the whole
kept in the runtime's spill store), goes to the observers and the sink. With a record sink,
`tool/call` is written first and `tool/result` last; a sink that raises is reported and never
loses a result (see `sink`: a call whose `tool/call` it refused is not run). A body, wrapper,
listener, guard or renderer that raises is a defect: the call fails with UNEXPECTED_ERROR and
the turn goes on (a body's or a wrapper's as a result the outer wrappers and the post-execute
waterfall see). A `PermissionDeclined` is DENIED. Interrupts are never caught.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Final, final

from toolfx.core.bounding import bound_result, over_limits
from toolfx.core.cancel import CancelSignal
from toolfx.core.catalog import Catalog, HookPlan
from toolfx.core.description import Description
from toolfx.core.dispatch import CallState, dispatch
from toolfx.core.execution import ExecutionToken, ToolExecution
from toolfx.core.failure import ErrorCode
from toolfx.core.json import JsonError
from toolfx.core.json_snapshot import snapshot_or_error
from toolfx.core.materialize import materialized
from toolfx.core.outcomes import defect, failed, printable, raised
from toolfx.core.pipeline_stages import (
    aborted_execution,
    execute_wrapped,
    finalized,
    observe,
    post_execute,
    pre_execute,
    with_contexts,
)
from toolfx.core.records import ToolCallRecord, ToolResultRecord
from toolfx.core.registry_model import Registration
from toolfx.core.results import ToolExecutionFailure, ToolExecutionResult, ToolExecutionSuccess
from toolfx.core.runtime import Runtime
from toolfx.core.sink import RecordSink, write_record

__all__ = ["MAX_LISTED_TOOLS", "RecordSink", "ToolCall", "execute", "run_call"]

MAX_LISTED_TOOLS: Final = 20
"""How many visible tool names an UNKNOWN_TOOL message lists."""


@final
@dataclass(frozen=True, slots=True, init=False)
class ToolCall:
    """A caller's call: id, tool name, raw arguments and the caller-owned cancellation signal."""

    call_id: str
    name: str
    arguments: object
    """The arguments, snapshotted into frozen JSON when the call is built (the caller's value
    stays here only when it is not JSON: `arguments_error` then says why, and the call fails)."""
    signal: CancelSignal
    root_call_id: str | None = None
    parent: ExecutionToken | None = None
    parent_call_id: str | None = None
    arguments_error: JsonError | None = field(default=None, init=False, repr=False)
    """Why the given arguments are not lossless JSON (the call gives INVALID_ARGS), or None."""

    # Stores through the slot descriptors, as results do (half the cost of the generated frozen
    # __init__); tests/unit/test_materialize.py checks the parameters match the fields.
    def __init__(  # noqa: PLR0917 (the dataclass signature, positional as declared)
        self,
        call_id: str,
        name: str,
        arguments: object,
        signal: CancelSignal,
        root_call_id: str | None = None,
        parent: ExecutionToken | None = None,
        parent_call_id: str | None = None,
    ) -> None:
        snapshot = snapshot_or_error(arguments)  # later changes to the caller's dict: unseen
        failed_snapshot = type(snapshot) is JsonError
        # a model's text may hold lone surrogates the records could not encode: written out
        _call_id(self, call_id if call_id.isascii() else printable(call_id))
        _name(self, name if name.isascii() else printable(name))
        _arguments(self, arguments if failed_snapshot else snapshot)
        _signal(self, signal)
        _root_call_id(self, root_call_id if root_call_id is None else printable(root_call_id))
        _parent(self, parent)
        _parent_call_id(
            self, parent_call_id if parent_call_id is None else printable(parent_call_id)
        )
        _arguments_error(self, snapshot if failed_snapshot else None)


_call_id = ToolCall.__dict__["call_id"].__set__
_name = ToolCall.__dict__["name"].__set__
_arguments = ToolCall.__dict__["arguments"].__set__
_signal = ToolCall.__dict__["signal"].__set__
_root_call_id = ToolCall.__dict__["root_call_id"].__set__
_parent = ToolCall.__dict__["parent"].__set__
_parent_call_id = ToolCall.__dict__["parent_call_id"].__set__
_arguments_error = ToolCall.__dict__["arguments_error"].__set__


def execute(
    catalog: Catalog, call: ToolCall, sink: RecordSink | None = None
) -> Description[ToolExecutionResult]:
    """The description of one call through the whole pipeline (inert until interpreted)."""

    def program(runtime: Runtime) -> Coroutine[Any, Any, ToolExecutionResult]:
        return run_call(runtime, catalog, call, sink)

    return Description(program)


async def run_call(
    runtime: Runtime,
    catalog: Catalog,
    call: ToolCall,
    sink: RecordSink | None = None,
    keep: Callable[[ToolExecutionResult], object] | None = None,
) -> ToolExecutionResult:
    """Run one call through the pipeline and give its frozen result (never raises an error).

    `keep` receives the result as soon as it is final (a batch keeps it even if what awaits the
    call fails).
    """
    problem = call.arguments_error
    execution = ToolExecution(  # positional: the fastest way to build it
        call.call_id,
        call.root_call_id or call.call_id,
        call.name,
        None if problem is not None else call.arguments,  # type: ignore[arg-type]
        catalog.scope,
        ExecutionToken(),
        call.signal,
        call.parent,
    )
    unrecorded = (  # a call whose `tool/call` the sink refused is not run
        None
        if sink is None
        else write_record(runtime, sink, ToolCallRecord.of(execution, call.parent_call_id))
    )
    direct = call.parent is None  # Code Mode: a model-direct call reaches only native tools
    view = catalog.view
    registration = (view.direct if direct else view.tools).get(call.name)
    plan = view.plan
    state = CallState()
    if unrecorded is not None:
        result: ToolExecutionResult = defect(
            unrecorded, f"writing the `tool/call` record of `{call.name}` (the call was not run)"
        )
    elif problem is not None:
        result = failed(
            ErrorCode.INVALID_ARGS, f"The arguments for `{call.name}` are not JSON: {problem}"
        )
    elif registration is None:
        result = _unknown_tool(catalog, call.name, direct=direct)
    elif call.signal.is_cancelled():
        result = aborted_execution(execution, state)
    else:  # inline, not a coroutine of its own: one frame less on every call and every wake-up
        try:  # each stage with no hooks is skipped: no coroutine, no closure for it
            refusal = None
            if plan.pre_execute or plan.guards:
                refusal = await _policy(runtime, plan, registration, execution, state)
            if refusal is None:
                definition = registration.definition
                state.stage = "an execute wrapper"
                if plan.execute or definition.timeout is not None:
                    result = await execute_wrapped(runtime, plan, definition, execution, state)
                else:
                    result = await dispatch(runtime, definition, execution, state)
                if plan.post_execute:
                    state.stage = "the post-execute policy"
                    result = await post_execute(plan, registration, execution, result, state)
                if isinstance(result, ToolExecutionSuccess) and call.signal.is_cancelled():
                    result = aborted_execution(execution, state)
            else:
                result = refusal
        except BaseException as error:  # the one boundary for defects: the turn goes on
            failure = raised(error, f"{state.stage} of `{execution.name}`")
            if failure is None:  # an interrupt: never caught
                raise
            result = failure
        if state.deferred:  # deferred contexts ride every outcome, not only a success
            result = with_contexts(result, state.deferred)
    result = _settled(runtime, registration, execution, result)
    if (over := over_limits(result.content, registration, view.output_limits)) is not None:
        result = await bound_result(runtime, over, execution, result)  # cut; the whole spilled
    if plan.result:
        observe(runtime, plan.result, execution, result)
    if sink is not None and unrecorded is None:
        write_record(runtime, sink, ToolResultRecord.of(execution.call_id, result))
    return result if keep is None else _kept(keep, result)


def _settled(
    runtime: Runtime,
    registration: Registration | None,
    execution: ToolExecution,
    result: ToolExecutionResult,
) -> ToolExecutionResult:
    """`finalize_content` once on the materialized candidate, then the result materialized."""
    if registration is not None and registration.definition.finalize_content is not None:
        candidate = materialized(result, execution.name)
        result = finalized(runtime, registration, execution, candidate)
    return materialized(result, execution.name)


async def _policy(
    runtime: Runtime,
    plan: HookPlan,
    registration: Registration,
    execution: ToolExecution,
    state: CallState,
) -> ToolExecutionFailure | None:
    """The pre-execute waterfall, then the guards: a refusal, or None to run the body."""
    if plan.pre_execute:
        refusal = await pre_execute(runtime, plan, registration, execution)
        if refusal is not None:
            return refusal
    if plan.guards:
        state.stage = "a guard"
        for guard in plan.guards:
            reason = guard(execution)
            if reason is not None:
                return failed(ErrorCode.DENIED, f"Denied: {reason}")
        if execution.signal.is_cancelled():
            return aborted_execution(execution, state)
    return None


def _kept(
    keep: Callable[[ToolExecutionResult], object], result: ToolExecutionResult
) -> ToolExecutionResult:
    keep(result)
    return result


def _unknown_tool(catalog: Catalog, name: str, *, direct: bool) -> ToolExecutionFailure:
    names = list(catalog.direct_names() if direct else catalog)
    listed = ", ".join(names[:MAX_LISTED_TOOLS]) + (" ..." if len(names) > MAX_LISTED_TOOLS else "")
    available = f" Available tools: {listed}." if names else " No tools are available."
    return failed(ErrorCode.UNKNOWN_TOOL, f"Unknown tool `{name}`.{available}")
