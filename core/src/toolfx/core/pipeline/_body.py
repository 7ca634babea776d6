"""The body's part of a call: decode the arguments, run the body, check and render its output."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Final, final, get_args

from returns.result import Failure, Success

from toolfx.core.json import snapshot_json
from toolfx.core.jsonschema import ValidationFailure
from toolfx.core.runtime import (
    Cancelled,
    RemoteLost,
    RemoteNotStarted,
    RemoteRequest,
    RemoteSettled,
)
from toolfx.core.tools import (
    ContentBlock,
    ErrorCode,
    ExecutionToken,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    ToolFailure,
    WithContent,
    aborted,
    failed,
    from_failure,
    new_success,
    printable,
    progress_event,
    raised,
    render_json,
)

if TYPE_CHECKING:
    from toolfx.core.codemode import SubCall
    from toolfx.core.json import FrozenJson
    from toolfx.core.pipeline._call import ToolCall
    from toolfx.core.pipeline._schedule import Decoding
    from toolfx.core.registry import Catalog
    from toolfx.core.runtime import CancelSignal, RemotePlacement, RemoteRunner, Runtime
    from toolfx.core.tools import (
        ContextMessage,
        ToolDefinition,
        ToolExecutionResult,
    )

__all__ = [
    "BLOCK_TYPES",
    "PLAIN_VALUES",
    "RENDERING",
    "SETTLED",
    "CallState",
    "CodeBridge",
    "body_failure",
    "body_outcome",
    "dispatch",
    "invalid_arguments",
    "started_body",
    "success_of",
    "unstarted_abort",
]

CodeBridge = Callable[
    ["ToolExecution", "CancelSignal", "Sequence[SubCall]", int],
    Awaitable["tuple[ToolExecutionResult, ...]"],
]
"""Sub-dispatches a `run_code` program's calls for the outer execution, on the given signal."""


@final
class CallState:
    """One call's run: what the pipeline learns while it runs (whether the body started, its
    extras) and the `ToolRunContext` its body receives, one object for both.

    Its `ToolExecution` is built when first asked for (by a hook, a sink, an observer, the body
    or a failure that needs it), not before: a call with none of these builds none.
    A body watching another signal than the call's (an execute wrapper's, or the timeout's)
    gets a context of its own (`watching`) that shares this state.
    """

    __slots__ = (
        "_catalog",
        "_execution",
        "_runtime",
        "_shared",
        "args",
        "body_started",
        "bridge",
        "call",
        "concludes_turn",
        "decoded",
        "deferred",
        "meta",
        "stage",
    )

    def __init__(  # noqa: PLR0917 (positional: one is built per call)
        self,
        call: ToolCall,
        runtime: Runtime,
        catalog: Catalog,
        decoded: Decoding | None,
        bridge: CodeBridge | None,
        execution: ToolExecution | None = None,
    ) -> None:  # slots: not an object and its dict
        self.call = call  # what the execution is made of; its own dependencies (None: Location's)
        self._execution = execution  # built when first asked for (`execution`) unless given
        self._runtime = runtime
        self._shared: CallState | None = None  # a context watching another signal: its call's
        self._catalog = catalog  # the call's agent; where the Location's dependencies are
        self.decoded = decoded  # the arguments as a batch's scheduling decoded them, if it did
        self.body_started: bool = False
        self.bridge = bridge  # `run_code` only: how its program's calls run
        self.meta: FrozenJson = None  # `run_code` only: the result's meta (its sub-call summary)
        self.args: object = None  # the decoded arguments, once the body is about to run
        self.stage: str = "the pre-execute policy"
        self.deferred: tuple[ContextMessage, ...] = ()
        self.concludes_turn: bool = False

    def watching(self, execution: ToolExecution) -> CallState:
        """The context of a body watching `execution`'s signal, sharing this call's state."""
        if execution is self._execution:
            return self
        context = CallState.__new__(CallState)  # only its view slots: the state is this one's
        context.call = self.call
        context._execution = execution
        context._runtime = self._runtime
        context._shared = self
        return context

    def _state(self) -> CallState:
        return self if self._shared is None else self._shared

    def __repr__(self) -> str:
        return f"RunContext({self.call.name!r}, call_id={self.call.call_id!r})"

    @property
    def execution(self) -> ToolExecution:
        """The pipeline's execution of this call (built the first time it is asked for)."""
        execution = self._execution
        if execution is None:
            call = self.call
            execution = self._execution = ToolExecution(  # positional: the fastest way
                call.call_id,
                call.root_call_id or call.call_id,
                call.name,
                None if call.arguments_error is not None else call.arguments,  # type: ignore[arg-type]
                self._catalog.scope,
                ExecutionToken(),
                call.signal,
                call.parent,
            )
        return execution

    @property
    def signal(self) -> CancelSignal:
        """Set when the caller cancels or the tool's timeout runs out: stop cooperatively."""
        execution = self._execution
        return self.call.signal if execution is None else execution.signal

    @property
    def runtime(self) -> Runtime:
        """The capabilities of the interpreter running the call."""
        return self._runtime

    @property
    def deps(self) -> object:
        """The dependencies provided for this call (its own, else its Location's; None if none)."""
        state = self._state()
        own = state.call.deps
        return own if own is not None else state._catalog.deps

    @property
    def call_id(self) -> str:
        """The model's id for this call."""
        return self.call.call_id

    @property
    def root_call_id(self) -> str:
        """The model-requested call at the root of this execution tree."""
        return self.execution.root_call_id

    @property
    def name(self) -> str:
        """The tool name the call asked for."""
        return self.call.name

    @property
    def arguments(self) -> FrozenJson:
        """The frozen arguments."""
        return self.execution.arguments

    @property
    def agent(self) -> str | None:
        """The agent on whose behalf the call runs."""
        return self.execution.agent

    def dispatch_code(
        self, calls: Sequence[SubCall], limit: int
    ) -> Awaitable[tuple[ToolExecutionResult, ...]]:
        """Run a program's calls as sub-dispatches of this call (the `run_code` body only)."""
        bridge = self._state().bridge
        if bridge is None:
            raise RuntimeError(f"`{self.call.name}` is not the Code Mode transport")
        execution = self.execution
        return bridge(execution, execution.signal, calls, limit)  # no frame of its own

    def attach_meta(self, meta: FrozenJson) -> None:
        """Give this call's result `meta` (the `run_code` body: its sub-call summary)."""
        self._state().meta = meta

    def defer_context(self, message: ContextMessage) -> None:
        """Attach a context message to this call's own result."""
        self._state().deferred += (message,)

    def conclude_turn(self) -> None:
        """Mark a successful result as the last of the agent turn."""
        self._state().concludes_turn = True

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Hand this call's progress to the runtime (a raising reporter is a contained defect)."""
        event = progress_event(self.execution, progress, total, message)
        try:
            self._runtime.progress(event)
        except Exception as error:
            self._runtime.report(error, f"reporting the progress of `{self.call.name}`")


PLAIN_VALUES: Final = frozenset({str, int, float, bool, type(None), dict, list, tuple})
"""Exact types a body's value can have that are never awaitable and never a `Result`."""

RENDERING: Final = "rendering the result"
"""The stage of a call while its value is rendered (what a renderer's defect is reported at)."""

SETTLED: Final = (ToolExecutionSuccess, ToolExecutionFailure)
"""The types of a settled result: what `started_body` (or `started_call`) gives when there is
nothing to wait for, else what is pending."""

BLOCK_TYPES: Final = frozenset(get_args(ContentBlock))
"""The exact types of content blocks, which a `WithContent` must hold."""


def dispatch(
    runtime: Runtime,
    definition: ToolDefinition[Any, Any],
    state: CallState,
    watched: ToolExecution | None = None,
) -> ToolExecutionResult | Coroutine[Any, Any, ToolExecutionResult]:
    """Run the body once for an allowed call and turn what it did into a result: the result
    itself when the body gave its value at once (no coroutine for it), else the coroutine that
    awaits the body's value and gives its result. The body watches the signal of `watched` (an
    execute wrapper's), or the call's own when None.

    The caller has checked the signal: nothing may run between that check and this call.
    """
    outer_stage = state.stage
    started = started_body(runtime, definition, state, watched)
    if isinstance(started, SETTLED):
        return started
    return _awaited(started, definition, state, outer_stage)


def started_body(
    runtime: Runtime,
    definition: ToolDefinition[Any, Any],
    state: CallState,
    watched: ToolExecution | None = None,
) -> ToolExecutionResult | Awaitable[object]:
    """`dispatch` without a coroutine of its own: the result when the body gave its value at
    once, else the body's pending value itself (its stage "the body" until then), which the
    caller awaits and turns into the result with `body_failure` or `body_outcome`."""
    call = state.call
    decoded = state.decoded  # a batch's scheduling decoded them: not validated again
    if decoded is None:
        decoded = definition.parameters.decode_or_failure(call.arguments)
    if isinstance(decoded, ValidationFailure):
        return invalid_arguments(call.name, decoded)
    args = state.args = decoded[1]
    state.decoded = None  # the typed arguments are `args` now: the decoding is not held on
    state.body_started = True
    context = state if watched is None else state.watching(watched)
    outer_stage, state.stage = state.stage, "the body"
    placement = definition.remote
    if placement is not None:
        runner = runtime.remote
        if runner is not None:
            return _remote_body(runner, runtime, placement, definition, state, context.signal)
    body = definition.execute
    try:
        if definition.blocking and not inspect.iscoroutinefunction(body):
            return runtime.run_blocking(functools.partial(body, args, context))
        returned = body(args, context)
    except BaseException as error:  # the wrappers and post-execute see a result, not a raise
        return body_failure(error, state)
    if type(returned) in PLAIN_VALUES:  # neither awaitable nor a Result: the value itself
        state.stage = outer_stage
        checked = definition.output.schema.round_trip_or_failure(returned)
        return success_of(definition, args, checked, state)
    if inspect.isawaitable(returned):
        return returned
    state.stage = outer_stage
    return _outcome(definition, args, returned, state)


@final
class _RemoteResult:
    """What a remote body's call gave, passed through `_outcome` as it is (the worker checked
    and rendered the body's value as a local call would)."""

    __slots__ = ("result",)

    def __init__(self, result: ToolExecutionResult) -> None:
        self.result = result


async def _remote_body(  # noqa: PLR0917 (positional: `started_body`'s parts)
    runner: RemoteRunner,
    runtime: Runtime,
    placement: RemotePlacement,
    definition: ToolDefinition[Any, Any],
    state: CallState,
    signal: CancelSignal,
) -> _RemoteResult:
    """The body run by `runner` on the call's signal, and what became of it as a result."""
    call, execution = state.call, state.execution
    request = RemoteRequest(
        call.name,
        execution.arguments,
        call.call_id,
        execution.root_call_id,
        execution.agent,
        definition.timeout,
        placement,
    )
    outcome = await runner.run(request, signal, runtime)
    if type(outcome) is RemoteSettled:
        result = outcome.result
        if type(result) not in SETTLED:
            raise TypeError(
                f"the remote runner gave {type(result).__name__} for `{call.name}`, not a result"
            )
        settled: ToolExecutionResult = result  # type: ignore[assignment]  # (checked above)
        if type(settled) is ToolExecutionSuccess:  # checked here too: the worker's tool may differ
            checked = definition.output.schema.round_trip_or_failure(settled.value)
            if isinstance(checked, ValidationFailure):
                return _RemoteResult(_invalid_output(checked, state))
        elif settled.error.code is ErrorCode.ABORTED_BEFORE_DISPATCH:
            state.body_started = False
        return _RemoteResult(settled)
    if type(outcome) is RemoteNotStarted:
        state.body_started = False
        return _RemoteResult(aborted(call.name, outcome.reason, body_started=False))
    if type(outcome) is not RemoteLost:
        raise TypeError(
            f"the remote runner gave {type(outcome).__name__} for `{call.name}`, not an outcome"
        )
    lost: RemoteLost = outcome
    return _RemoteResult(
        failed(
            ErrorCode.REMOTE_LOST,
            printable(
                f"`{call.name}` ran remotely on {lost.worker}, which was lost: {lost.reason}"
                " (the body may have partly run)"
            ),
        )
    )


def invalid_arguments(name: str, failure: ValidationFailure) -> ToolExecutionFailure:
    """The INVALID_ARGS failure of a call of `name` whose arguments its parameters refused."""
    return failed(
        ErrorCode.INVALID_ARGS,
        failure.message(f"Invalid arguments for tool `{name}`"),
        _issue_details(failure.issues),
    )


async def _awaited(
    pending: Awaitable[object],
    definition: ToolDefinition[Any, Any],
    state: CallState,
    outer_stage: str,
) -> ToolExecutionResult:
    """The result of a body whose value comes later (an async body, or a blocking one on a
    thread): the body runs in this coroutine, no layer between."""
    try:
        returned = await pending
    except BaseException as error:
        return body_failure(error, state)
    return body_outcome(definition, returned, state, outer_stage)


def body_outcome(
    definition: ToolDefinition[Any, Any], returned: object, state: CallState, outer_stage: str
) -> ToolExecutionResult:
    """The result of the value a pending body gave (`started_body`), back at `outer_stage`."""
    state.stage = outer_stage
    return _outcome(definition, state.args, returned, state)


def unstarted_abort(pending: Awaitable[object], state: CallState) -> ToolExecutionFailure | None:
    """ABORTED_BEFORE_DISPATCH if the call's signal is set while its pending body is a coroutine
    that has not run a line (a batch starts its calls before their tasks first run), which is
    then closed, never run; else None (the body is awaited)."""
    signal = state.call.signal
    if not (
        signal.is_cancelled()
        and inspect.iscoroutine(pending)
        and inspect.getcoroutinestate(pending) == inspect.CORO_CREATED
    ):
        return None
    pending.close()
    state.body_started = False
    return aborted(state.call.name, signal.reason, body_started=False)


def body_failure(error: BaseException, state: CallState) -> ToolExecutionFailure:
    """What a body's raise makes: ABORTED for `Cancelled`, else a defect (an interrupt is
    raised on)."""
    if isinstance(error, Cancelled):
        return _deferred(aborted(state.call.name, error.reason, body_started=True), state)
    failure = raised(error, f"the body of `{state.call.name}`")
    if failure is None:  # an interrupt: never caught
        raise error
    return _deferred(failure, state)


def _outcome(
    definition: ToolDefinition[Any, Any],
    args: object,
    returned: object,
    state: CallState,
) -> ToolExecutionResult:
    """The result of what the body gave: its value checked and rendered, or its failure."""
    if type(returned) in PLAIN_VALUES:  # neither awaitable nor a Result: the value itself
        checked = definition.output.schema.round_trip_or_failure(returned)
        return success_of(definition, args, checked, state)
    if isinstance(returned, Failure):
        failure = returned.failure()
        if isinstance(failure, ToolFailure):
            return _deferred(from_failure(failure), state)
        return _deferred(
            failed(
                ErrorCode.UNEXPECTED_ERROR,
                printable(
                    f"`{state.call.name}` returned a failure that is not a ToolFailure: {failure!r}"
                ),
            ),
            state,
        )
    if type(returned) is _RemoteResult:
        return returned.result
    value = returned.unwrap() if isinstance(returned, Success) else returned
    if type(value) is WithContent:
        return _with_content(definition, args, value, state)
    checked = definition.output.schema.round_trip_or_failure(value)
    return success_of(definition, args, checked, state)


def _with_content(
    definition: ToolDefinition[Any, Any],
    args: object,
    returned: WithContent[Any],
    state: CallState,
) -> ToolExecutionResult:
    """The success of a value the body gave with its content, both checked."""
    for index, block in enumerate(returned.content):
        if type(block) not in BLOCK_TYPES:
            return _deferred(
                failed(
                    ErrorCode.INVALID_TOOL_OUTPUT,
                    f"Tool `{state.call.name}` returned content whose block {index} is "
                    f"{type(block).__name__}, not a content block",
                ),
                state,
            )
    checked = definition.output.schema.round_trip_or_failure(returned.value)
    return success_of(definition, args, checked, state, given=returned.content)


def _deferred(failure: ToolExecutionFailure, state: CallState) -> ToolExecutionFailure:
    """A failure of a started body, carrying the context messages the body deferred (and the
    meta it attached)."""
    meta = state.meta
    if not state.deferred and meta is None:
        return failure
    return ToolExecutionFailure(
        failure.error, failure.content, failure.meta if meta is None else meta, state.deferred
    )


def success_of(
    definition: ToolDefinition[Any, Any],
    args: object,
    checked: tuple[FrozenJson, Any] | ValidationFailure,
    state: CallState,
    *,
    given: tuple[ContentBlock, ...] | None = None,
) -> ToolExecutionResult:
    """The rendered success of a checked value (shown as `given` content when the body gave
    it), or INVALID_TOOL_OUTPUT if the check failed."""
    if isinstance(checked, ValidationFailure):
        return _invalid_output(checked, state)
    frozen, typed = checked
    output = definition.output
    render = output.render
    try:  # the default renderer writes the checked JSON (a dataclass is not JSON, its JSON is)
        if given is None:
            content = render(args, frozen if render is render_json else typed)
            content = content if type(content) is tuple else tuple(content)
        else:
            content = given
        meta = (
            None
            if output.presentation_meta is None
            else _presentation_meta(definition, state, args, typed)
        )
    except BaseException as error:  # a renderer is pure and total by contract: a defect otherwise
        failure = raised(error, f"{RENDERING} of `{state.call.name}`")
        if failure is None:  # an interrupt: never caught
            raise
        return _deferred(failure, state)
    if isinstance(meta, ToolExecutionFailure):
        return _deferred(meta, state)
    if state.meta is not None:  # what the body attached
        meta = state.meta
    return new_success(frozen, content, meta, state.deferred, state.concludes_turn)


def _presentation_meta(
    definition: ToolDefinition[Any, Any], state: CallState, args: object, typed: object
) -> FrozenJson | ToolExecutionFailure:
    project = definition.output.presentation_meta
    if project is None or state.call.parent is not None:  # top-level calls only
        return None
    snapshot = snapshot_json(project(args, typed))
    if isinstance(snapshot, Success):
        meta: FrozenJson = snapshot.unwrap()
        return meta
    return failed(
        ErrorCode.INVALID_TOOL_OUTPUT,
        f"Presentation meta of `{state.call.name}` is not JSON: {snapshot.failure()}",
    )


def _invalid_output(failure: ValidationFailure, state: CallState) -> ToolExecutionResult:
    """INVALID_TOOL_OUTPUT for a value the tool's output schema refused."""
    return _deferred(
        failed(
            ErrorCode.INVALID_TOOL_OUTPUT,
            printable(failure.message(f"Tool `{state.call.name}` returned an invalid value")),
            _issue_details(failure.issues),
        ),
        state,
    )


def _issue_details(issues: Sequence[Any]) -> FrozenJson:
    return snapshot_json(
        [{"path": i.path, "expected": i.expected, "found": i.found} for i in issues]
    ).value_or(None)
