"""The execution pipeline for one call, as a description: exactly one frozen result, always.

Order: snapshot the arguments, resolve the tool, pre-execute waterfall (allow/deny/ask), guards,
execute waterfall around the body (the definition's timeout innermost), post-execute waterfall,
caller cancellation, `finalize_content` once (on the materialized candidate), then the result,
materialized and frozen (`toolfx.core.tools.materialized`) and bounded (text over the output limits
cut, the whole kept in the runtime's spill store), goes to the observers and the sink. With a record
sink, `tool/call` is written first and `tool/result` last; a sink that raises is reported and never
loses a result (see `sink`: a call whose `tool/call` it refused is not run). A body, wrapper,
listener, guard or renderer that raises is a defect: the call fails with UNEXPECTED_ERROR and the
turn goes on (a body's or a wrapper's as a result the outer wrappers and the post-execute waterfall
see). A `PermissionDeclined` is DENIED, an `ApprovalDeferred` APPROVAL_PENDING (as is an ask
answered "deferred"). Interrupts are never caught.

One pipeline, three routes into it, chosen per call by the tool, the scope's hook plan and
the caller (`started_call`): a plain tool in a scope with no hooks or observers, called with no
record sink, is its body and nothing else (the plain route: its usual success is built final,
`_usual_success`); with no pre-execute listener, guard, execute wrapper, post-execute listener
or timeout, the body is dispatched at once; otherwise the policy runs in a coroutine. On the
first two a call that never waits gives its result with no coroutine (the sync interpreter
starts it through `Description.eager`). All end the same way (`_ended`) but the plain route's
usual success, and the call's `ToolExecution` is built only when something asks for it (a
hook, a sink, an observer, the body). tests/properties/test_call_routes_properties.py checks
the routes agree.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from types import CoroutineType
from typing import TYPE_CHECKING, Any, Final, NamedTuple, final

from toolfx.core.json import JsonError, parse_or_error, snapshot_or_error
from toolfx.core.jsonschema import ValidationFailure
from toolfx.core.pipeline._body import (
    PLAIN_VALUES,
    RENDERING,
    SETTLED,
    CallState,
    body_failure,
    body_outcome,
    dispatch,
    invalid_arguments,
    started_body,
    success_of,
    unstarted_abort,
)
from toolfx.core.pipeline._bounding import bound_result, over_limits
from toolfx.core.pipeline._code_bridge import dispatch_sub_calls
from toolfx.core.pipeline._schedule import Decoding
from toolfx.core.records import RecordSink, ToolCallRecord, ToolResultRecord, write_record
from toolfx.core.registry import TRANSPORT_HANDLE
from toolfx.core.runtime import (
    NO_ONE_TO_ASK,
    ApprovalRequest,
    CancelSignal,
    Description,
    RejectedWithFeedback,
    new_description,
)
from toolfx.core.tools import (
    CALL_FAILURES,
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    ErrorCode,
    ExecutionToken,
    ReplaceContent,
    ReplaceValue,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    ToolFailure,
    aborted,
    defect,
    failed,
    materialized,
    new_success,
    pending,
    printable,
    raised,
    render_json,
)

if TYPE_CHECKING:
    from toolfx.core.codemode import SubCall
    from toolfx.core.pipeline._resumption import Resumption
    from toolfx.core.registry import Catalog, HookPlan, Registration
    from toolfx.core.runtime import Runtime
    from toolfx.core.tools import (
        ContentBlock,
        ContextMessage,
        ExecuteWrapper,
        OutputLimits,
        PostExecuteListener,
        PostToolDecision,
        PreExecuteListener,
        PreToolDecision,
        ResultObserver,
        ToolDefinition,
        ToolExecutionResult,
    )

__all__ = [
    "MAX_LISTED_TOOLS",
    "ToolCall",
    "aborted_execution",
    "execute",
    "execute_wrapped",
    "finalized",
    "observe",
    "post_execute",
    "pre_execute",
    "run_call",
    "with_contexts",
]


MAX_LISTED_TOOLS: Final = 20


"""How many visible tool names an UNKNOWN_TOOL message lists."""


_AROUND_THE_BODY: Final = "an execute wrapper"
"""The stage of a hook-free call around its body (what a defect there is reported at)."""


_ALLOWED: Final = Allow()
"""What the pre-execute waterfall decides past its last listener (built once: it is frozen)."""


_ACCEPTED: Final = Accept()
"""What the post-execute waterfall decides past its last listener (built once: it is frozen)."""


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
    deps: object = field(default=None, repr=False, compare=False)
    """The dependencies its tool's body reads from `ctx.deps` (None: the Location's)."""
    arguments_error: JsonError | None = field(default=None, init=False, repr=False)
    """Why the given arguments are not lossless JSON (the call gives INVALID_ARGS), or None."""

    # Built whole by `__new__` (see `_built`: a ToolCall's own stores would go through its frozen
    # `__setattr__`); tests/unit/test_materialize.py checks the parameters match the fields.
    def __new__(  # noqa: PLR0917 (the dataclass signature, positional as declared)
        cls,
        call_id: str,
        name: str,
        arguments: object,
        signal: CancelSignal,
        root_call_id: str | None = None,
        parent: ExecutionToken | None = None,
        parent_call_id: str | None = None,
        deps: object = None,
    ) -> ToolCall:
        snapshot = snapshot_or_error(arguments)  # later changes to the caller's dict: unseen
        if type(snapshot) is JsonError:
            return _built(
                call_id,
                name,
                arguments,
                snapshot,
                signal,
                root_call_id,
                parent,
                parent_call_id,
                deps,
            )
        return _built(
            call_id, name, snapshot, None, signal, root_call_id, parent, parent_call_id, deps
        )

    def __getnewargs__(self) -> tuple[str, str, object, CancelSignal]:
        """What `__new__` is given when a copy or an unpickled call is made (its fields, all
        of them, are then set from its state)."""
        return (self.call_id, self.name, self.arguments, self.signal)

    @staticmethod
    def from_json(  # noqa: PLR0917 (as the constructor's, with the text for the arguments)
        call_id: str,
        name: str,
        text: str | bytes,
        signal: CancelSignal,
        root_call_id: str | None = None,
        parent: ExecutionToken | None = None,
        parent_call_id: str | None = None,
        deps: object = None,
    ) -> ToolCall:
        """A call whose arguments are JSON text (as a model sends them), parsed straight into
        frozen JSON; text that is not lossless JSON makes a call failing INVALID_ARGS that says
        what is wrong and where (`arguments` then keeps the text as it came)."""
        parsed = parse_or_error(text)  # frozen already: no second snapshot
        if type(parsed) is JsonError:
            return _built(
                call_id, name, text, parsed, signal, root_call_id, parent, parent_call_id, deps
            )
        return _built(
            call_id, name, parsed, None, signal, root_call_id, parent, parent_call_id, deps
        )

    def record(self, agent: str | None) -> ToolCallRecord:
        """The `tool/call` record of this call made by `agent` (its arguments, if JSON)."""
        return ToolCallRecord(
            self.call_id,
            self.root_call_id or self.call_id,
            self.name,
            None if self.arguments_error is not None else self.arguments,  # type: ignore[arg-type]
            agent,
            self.parent_call_id,
        )

    @classmethod
    def unparsed(
        cls, call_id: str, name: str, text: str, problem: JsonError, signal: CancelSignal
    ) -> ToolCall:
        """A call whose arguments arrived as text that is not JSON: it fails INVALID_ARGS,
        naming `problem`; `arguments` keeps the text as it came."""
        return _built(call_id, name, text, problem, signal, None, None, None, None)


@final
class _CallDraft:
    """A `ToolCall` being built: the same slots, stored with plain attribute stores (a ToolCall's
    own go through its frozen `__setattr__`, or a slot descriptor's `__set__` at 7x the cost),
    then made the ToolCall it stands for by `__class__` assignment (the layouts are the same)."""

    __slots__ = ToolCall.__slots__
    call_id: str
    name: str
    arguments: object
    signal: CancelSignal
    root_call_id: str | None
    parent: ExecutionToken | None
    parent_call_id: str | None
    deps: object
    arguments_error: JsonError | None


def _built(  # noqa: PLR0917 (every field, positional: the hot path of every call)
    call_id: str,
    name: str,
    arguments: object,
    arguments_error: JsonError | None,
    signal: CancelSignal,
    root_call_id: str | None,
    parent: ExecutionToken | None,
    parent_call_id: str | None,
    deps: object,
) -> ToolCall:
    """A new call of these fields (a model's text may hold lone surrogates the records could not
    encode: ids and names are written out printable)."""
    draft = _CallDraft()
    draft.call_id = call_id if call_id.isascii() else printable(call_id)
    draft.name = name if name.isascii() else printable(name)
    draft.arguments = arguments
    draft.signal = signal
    draft.root_call_id = root_call_id if root_call_id is None else printable(root_call_id)
    draft.parent = parent
    draft.parent_call_id = parent_call_id if parent_call_id is None else printable(parent_call_id)
    draft.deps = deps
    draft.arguments_error = arguments_error
    draft.__class__ = ToolCall  # type: ignore[assignment]  # what mypy cannot follow: it is one now
    return draft  # type: ignore[return-value]


def execute(
    catalog: Catalog, call: ToolCall, sink: RecordSink | None = None
) -> Description[ToolExecutionResult]:
    """The description of one call through the whole pipeline (inert until interpreted)."""

    return new_description(
        functools.partial(_program, catalog, call, sink),
        functools.partial(started_call, catalog, call, sink),
    )


def _program(
    catalog: Catalog, call: ToolCall, sink: RecordSink | None, runtime: Runtime
) -> Coroutine[Any, Any, ToolExecutionResult]:
    """`execute`'s program: `run_call` of the call (bound by a partial, as its eager start)."""
    return run_call(runtime, catalog, call, sink)


async def run_call(  # noqa: PLR0917 (positional: partials bind them on the hot path)
    runtime: Runtime,
    catalog: Catalog,
    call: ToolCall,
    sink: RecordSink | None = None,
    keep: Callable[[ToolExecutionResult], object] | None = None,
    resumption: Resumption | None = None,
    decoded: Decoding | None = None,
) -> ToolExecutionResult:
    """Run one call through the pipeline and give its frozen result (never raises an error).

    `keep` receives the result as soon as it is final (a batch keeps it even if what awaits the
    call fails). `resumption` (a journaled run's) is consulted for a `run_code` call's sub-calls.
    `decoded` is the call's arguments as its tool's parameters decoded them already (a batch's
    scheduling did): the body gets them without a second validation.
    """
    started = started_call(catalog, call, sink, runtime, keep, resumption, decoded)
    return started if isinstance(started, SETTLED) else await started


def started_call(  # noqa: PLR0917 (run_call's parameters; a partial binds the first three)
    catalog: Catalog,
    call: ToolCall,
    sink: RecordSink | None,
    runtime: Runtime,
    keep: Callable[[ToolExecutionResult], object] | None = None,
    resumption: Resumption | None = None,
    decoded: Decoding | None = None,
) -> ToolExecutionResult | Coroutine[Any, Any, ToolExecutionResult]:
    """`run_call` started at once: the result when nothing on the way waits (no hook before or
    around the body, a body giving its value at once, text within the limits), else the
    coroutine that finishes the call from where it had to wait.

    A plain tool (`Registration.plain`) in a scope with no hooks and no observers, called with
    no record sink, takes the plain route, here: its body runs at once (its arguments decoded
    unless `decoded` holds them), a coroutine body's value is awaited in `_dispatched_later`,
    and the usual outcome is the final success `_usual_success` builds, handed to `keep` if
    given; every other outcome ends as on the other routes (`body_outcome`, `_after_body`,
    `_ended`). Any other call takes `_routed_call`.
    tests/properties/test_call_routes_properties.py checks the routes agree.
    """
    view = catalog.view  # Code Mode: a model-direct call (no parent) reaches only native tools
    registration = (view.direct if call.parent is None else view.code).get(call.name)
    if (
        registration is None
        or not registration.plain
        or not view.plan.bare
        or sink is not None
        or call.arguments_error is not None
        or call.signal.is_cancelled()
    ):
        return _routed_call(registration, catalog, call, sink, runtime, keep, resumption, decoded)
    limits = view.output_limits
    definition = registration.definition
    state = CallState(call, runtime, catalog, None, None)
    state.stage = _AROUND_THE_BODY
    success: ToolExecutionSuccess | None = None
    try:  # the one boundary for defects, as on the other routes
        if decoded is None:  # (a batch's scheduling decoded them: not validated again)
            decoded = definition.parameters.decode_or_failure(call.arguments)
        if isinstance(decoded, ValidationFailure):
            result: ToolExecutionResult = invalid_arguments(call.name, decoded)
            return _ended(result, runtime, registration, state, limits, (), None, None, keep)
        args = state.args = decoded[1]
        decoded = None  # the typed arguments are `args` now: the decoding is not held on
        state.body_started = True
        state.stage = "the body"
        try:
            returned = definition.execute(args, state)
        except BaseException as error:  # the steps after the body see a result, not a raise
            result = body_failure(error, state)
        else:
            state.stage = _AROUND_THE_BODY
            if type(returned) is CoroutineType or (  # a coroutine body's, or another awaitable
                type(returned) not in PLAIN_VALUES and inspect.isawaitable(returned)
            ):
                return _dispatched_later(
                    returned, definition, runtime, registration, state, limits, (), None, None, keep
                )
            success = _usual_success(definition, args, returned, state, limits)
            result = (
                body_outcome(definition, returned, state, _AROUND_THE_BODY)
                if success is None
                else success
            )
        if result is not success:
            result = _after_body(result, state)
    except BaseException as error:
        result = _defect_of(error, state)
    if result is success:  # final: delivered to no one but `keep`
        if keep is not None:
            keep(result)
        return result
    return _ended(result, runtime, registration, state, limits, (), None, None, keep)


def _usual_success(
    definition: ToolDefinition[Any, Any],
    args: object,
    returned: object,
    state: CallState,
    limits: OutputLimits,
) -> ToolExecutionSuccess | None:
    """The final success of a plain call's usual outcome, built as `success_of` builds it; None
    for any other (the call then ends as on the other routes).

    Usual: a plain value that is valid output, nothing deferred or attached, its text within
    the limits as `over_limits` bounds them, the call not cancelled. Its value is checked
    lossless JSON and its one text block `render_json`'s writing of it: materializing it would
    change nothing. A renderer's defect is raised at the stage `success_of` names it at.
    """
    if type(returned) not in PLAIN_VALUES or state.deferred or state.meta is not None:
        return None
    checked = definition.output.schema.round_trip_or_failure(returned)
    if type(checked) is not tuple:
        return None
    frozen = checked[0]
    state.stage = RENDERING
    content = render_json(args, frozen)
    state.stage = _AROUND_THE_BODY
    own = definition.output_limits or limits
    if (  # one text block and the line break after it
        len(content[0].text) < own.clear_chars  # type: ignore[union-attr]
        and not state.call.signal.is_cancelled()
    ):
        return new_success(frozen, content, None, (), state.concludes_turn)
    return None


def _routed_call(  # noqa: PLR0917 (started_call's parameters, as it passes them)
    registration: Registration | None,
    catalog: Catalog,
    call: ToolCall,
    sink: RecordSink | None,
    runtime: Runtime,
    keep: Callable[[ToolExecutionResult], object] | None,
    resumption: Resumption | None,
    decoded: Decoding | None,
) -> ToolExecutionResult | Coroutine[Any, Any, ToolExecutionResult]:
    """A call off the plain route: with no pre-execute listener, guard, execute wrapper,
    post-execute listener or timeout its body is dispatched here; otherwise the whole policy
    runs in `_policed`. Both go on to the same ending (`_ended`)."""
    view = catalog.view
    plan = view.plan
    problem = call.arguments_error
    bridge = (  # `run_code`: its program's calls are sub-dispatches with this call's deps
        functools.partial(_sub_dispatch, runtime, catalog, sink, resumption, call.deps)
        if registration is not None and registration.handle == TRANSPORT_HANDLE
        else None
    )
    state = CallState(call, runtime, catalog, decoded, bridge)  # its execution: built if asked
    unrecorded = (  # a call whose `tool/call` the sink refused is not run
        None
        if sink is None
        else write_record(runtime, sink, ToolCallRecord.of(state.execution, call.parent_call_id))
    )
    parts = (runtime, registration, state, view.output_limits, plan.result, sink, unrecorded, keep)
    if unrecorded is not None:
        result: ToolExecutionResult = defect(
            unrecorded, f"writing the `tool/call` record of `{call.name}` (the call was not run)"
        )
    elif problem is not None:
        result = failed(
            ErrorCode.INVALID_ARGS, f"The arguments for `{call.name}` are not JSON: {problem}"
        )
    elif registration is None:
        result = _unknown_tool(catalog, call.name, direct=call.parent is None)
    elif call.signal.is_cancelled():
        result = aborted_execution(state.execution, state)
    elif plan.around_body or registration.definition.timeout is not None:
        return _policed(plan, registration, state, _Ending._make(parts))
    else:  # nothing before or around the body: dispatched here, no coroutine unless it waits
        state.stage = _AROUND_THE_BODY
        try:
            dispatched = started_body(runtime, registration.definition, state)
        except BaseException as error:  # the one boundary for defects: the turn goes on
            dispatched = _defect_of(error, state)
        if not isinstance(dispatched, SETTLED):  # the body's value comes later
            return _dispatched_later(
                dispatched,
                registration.definition,
                runtime,
                registration,
                state,
                view.output_limits,
                plan.result,
                sink,
                unrecorded,
                keep,
            )
        result = _after_body(dispatched, state)
    return _ended(result, *parts)


class _Ending(NamedTuple):
    """What ends a call once it has its result (`_ended`'s parameters), kept by a coroutine."""

    runtime: Runtime
    registration: Registration | None
    state: CallState
    limits: OutputLimits
    """The output limits of a tool that declares none (its Location's)."""
    observers: tuple[ResultObserver, ...]
    sink: RecordSink | None
    unrecorded: Exception | None
    keep: Callable[[ToolExecutionResult], object] | None


async def _policed(
    plan: HookPlan, registration: Registration, state: CallState, ending: _Ending
) -> ToolExecutionResult:
    """The call through its hooks: pre-execute, guards, wrappers (and timeout), post-execute."""
    runtime, execution = ending.runtime, state.execution  # the hooks see it: built now
    try:
        refusal = (
            await _policy(runtime, plan, registration, execution, state)
            if plan.pre_execute or plan.guards
            else None
        )
        if refusal is None:
            definition = registration.definition
            state.stage = "an execute wrapper"
            if plan.execute or definition.timeout is not None:
                result = await execute_wrapped(runtime, plan, definition, execution, state)
            else:  # a body giving its value at once is no coroutine: nothing to await
                dispatched = dispatch(runtime, definition, state)
                result = dispatched if isinstance(dispatched, SETTLED) else await dispatched
            if plan.post_execute:
                state.stage = "the post-execute policy"
                result = await post_execute(plan, registration, execution, result, state)
            result = _after_body(result, state)
        else:
            result = _with_deferred(refusal, state)
    except BaseException as error:  # the one boundary for defects: the turn goes on
        result = _with_deferred(_defect_of(error, state), state)
    ended = _ended(result, *ending)
    return ended if isinstance(ended, SETTLED) else await ended


async def _dispatched_later(  # noqa: PLR0917 (the pending body, then `_Ending`'s fields)
    pending: Awaitable[object],
    definition: ToolDefinition[Any, Any],
    runtime: Runtime,
    registration: Registration,
    state: CallState,
    limits: OutputLimits,
    observers: tuple[ResultObserver, ...],
    sink: RecordSink | None,
    unrecorded: Exception | None,
    keep: Callable[[ToolExecutionResult], object] | None,
) -> ToolExecutionResult:
    """The call of a body whose value comes later, in one coroutine: the body's pending value
    awaited here (no layer between), then the call ended as `started_call` ends it.

    What ends it is this coroutine's own arguments, not an object of their own: ten thousand
    calls in flight hold that many fewer objects for the collector to walk. A batch's task
    runs it directly (`execute_batch` starts its calls as the tasks are made): a body that
    has not run a line when the caller cancels is not run (ABORTED_BEFORE_DISPATCH). A plain
    tool's usual outcome, with no one but `keep` to deliver it to, is given as the plain route
    gives it (`_usual_success`).
    """
    success: ToolExecutionSuccess | None = None
    try:
        unstarted = unstarted_abort(pending, state) if state.call.signal.is_cancelled() else None
        if unstarted is None:
            try:
                returned = await pending
            except BaseException as error:  # the body's: a result, as `dispatch` makes it
                result: ToolExecutionResult = body_failure(error, state)
            else:
                if registration.plain and not observers and sink is None:
                    success = _usual_success(definition, state.args, returned, state, limits)
                result = (
                    body_outcome(definition, returned, state, _AROUND_THE_BODY)
                    if success is None
                    else success
                )
        else:
            result = unstarted
        if result is not success:
            result = _after_body(result, state)
    except BaseException as error:  # the one boundary for defects: the turn goes on
        result = _with_deferred(_defect_of(error, state), state)
    if result is success:  # final: delivered to no one but `keep`
        if keep is not None:
            keep(result)
        return result
    ended = _ended(result, runtime, registration, state, limits, observers, sink, unrecorded, keep)
    return ended if isinstance(ended, SETTLED) else await ended


def _defect_of(error: BaseException, state: CallState) -> ToolExecutionFailure:
    """The failure of a hook, wrapper or body that raised at the call's stage (an interrupt is
    raised on)."""
    failure = raised(error, f"{state.stage} of `{state.call.name}`")
    if failure is None:  # an interrupt: never caught
        raise error
    return failure


def _after_body(result: ToolExecutionResult, state: CallState) -> ToolExecutionResult:
    """The result once the body and the hooks around it are done: ABORTED if the caller
    cancelled meanwhile, with the context messages deferred on the way."""
    if type(result) is ToolExecutionSuccess and state.call.signal.is_cancelled():
        result = aborted_execution(state.execution, state)
    return with_contexts(result, state.deferred) if state.deferred else result


def _with_deferred(result: ToolExecutionResult, state: CallState) -> ToolExecutionResult:
    """Deferred contexts ride every outcome, not only a success."""
    return with_contexts(result, state.deferred) if state.deferred else result


def _ended(  # noqa: PLR0917 (positional: `_Ending`'s fields, in its order)
    result: ToolExecutionResult,
    runtime: Runtime,
    registration: Registration | None,
    state: CallState,
    limits: OutputLimits,
    observers: tuple[ResultObserver, ...],
    sink: RecordSink | None,
    unrecorded: Exception | None,
    keep: Callable[[ToolExecutionResult], object] | None,
) -> ToolExecutionResult | Coroutine[Any, Any, ToolExecutionResult]:
    """The result settled (`finalize_content` once on the materialized candidate, then
    materialized), bounded, observed, recorded and kept: at once, or the coroutine that first
    cuts text over the limits (`limits` unless the tool declares its own)."""
    if registration is not None and registration.definition.finalize_content is not None:
        candidate = materialized(result, state.call.name)
        result = finalized(runtime, registration, state.execution, candidate)
    result = materialized(result, state.call.name)
    if (over := over_limits(result.content, registration, limits)) is not None:
        ending = _Ending(runtime, registration, state, limits, observers, sink, unrecorded, keep)
        return _bounded(over, result, ending)
    if not observers and sink is None and keep is None:  # no one to deliver it to
        return result
    return _delivered(result, runtime, state, observers, sink, unrecorded, keep)


async def _bounded(
    over: OutputLimits, result: ToolExecutionResult, ending: _Ending
) -> ToolExecutionResult:
    """The result with its text cut to `over` (the whole spilled), then delivered."""
    runtime, state = ending.runtime, ending.state
    bounded = await bound_result(runtime, over, state.execution, result)
    return _delivered(
        bounded, runtime, state, ending.observers, ending.sink, ending.unrecorded, ending.keep
    )


def _delivered(  # noqa: PLR0917 (positional: the hot path of every call)
    result: ToolExecutionResult,
    runtime: Runtime,
    state: CallState,
    observers: tuple[ResultObserver, ...],
    sink: RecordSink | None,
    unrecorded: Exception | None,
    keep: Callable[[ToolExecutionResult], object] | None,
) -> ToolExecutionResult:
    """The final result shown to the observers, recorded (unless its `tool/call` was not) and
    kept."""
    if observers:
        observe(runtime, observers, state.execution, result)
    if sink is not None and unrecorded is None:
        write_record(runtime, sink, ToolResultRecord.of(state.call.call_id, result))
    if keep is not None:
        keep(result)
    return result


def _sub_dispatch(  # noqa: PLR0917 (a partial's bound state, then the bridge's)
    runtime: Runtime,
    catalog: Catalog,
    sink: RecordSink | None,
    resumption: Resumption | None,
    deps: object,
    outer: ToolExecution,
    signal: CancelSignal,
    calls: Sequence[SubCall],
    limit: int,
) -> Coroutine[Any, Any, tuple[ToolExecutionResult, ...]]:
    """A program's calls as sub-dispatches of `outer`: `<id>:code:<n>`, its root, token, deps."""
    sub_calls = [
        ToolCall(
            f"{outer.call_id}:code:{call.number}",
            call.name,
            call.arguments,
            signal,
            outer.root_call_id,
            outer.token,
            outer.call_id,
            deps,
        )
        for call in calls
    ]
    return dispatch_sub_calls(runtime, catalog, sink, outer, sub_calls, limit, run_call, resumption)


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


def _unknown_tool(catalog: Catalog, name: str, *, direct: bool) -> ToolExecutionFailure:
    names = list(catalog.direct_names()) if direct else sorted(catalog.view.code)
    listed = ", ".join(names[:MAX_LISTED_TOOLS]) + (" ..." if len(names) > MAX_LISTED_TOOLS else "")
    available = f" Available tools: {listed}." if names else " No tools are available."
    return failed(ErrorCode.UNKNOWN_TOOL, f"Unknown tool `{name}`.{available}")


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
        return _ALLOWED

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
    if reply in ("allowed-once", "allowed-always"):  # no rules offered: always counts as once
        return None
    if reply == "cancelled":  # the ask was called off (the caller, or a framework deferring it)
        return aborted(execution.name, "its approval was cancelled", body_started=False)
    if reply == "deferred":  # answered later: a journaled run resumes it
        waiting = f"`{execution.name}` is waiting for approval{why}: it has not run, and runs once"
        return pending(f"{waiting} the approval is answered.", (execution.call_id,))
    if isinstance(reply, RejectedWithFeedback):
        return failed(ErrorCode.DENIED, f"Denied{why}; the user said: {reply.feedback}")
    if reply == "unavailable":
        return failed(
            ErrorCode.DENIED, f"Denied: no one could approve this call{why}: {NO_ONE_TO_ASK}"
        )
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
    dispatched = dispatch(runtime, definition, state, execution)
    return dispatched if isinstance(dispatched, SETTLED) else await dispatched


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
            replaced = success_of(definition, state.args, checked, state)
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
        return _ACCEPTED

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
