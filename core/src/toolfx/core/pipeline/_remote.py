"""The worker's half of a remote body: run one allowed call's body where the runner put it.

The driver ran the whole policy before it handed the call over (`RemoteRequest`), so the worker
runs only the body's part, as a local call runs it: the arguments decoded from their frozen
JSON, the body run with the worker's own signal (which the runner sets when the driver's is),
its value checked and rendered, its deferred contexts and turn conclusion kept in the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, final

from toolfx.core.pipeline._body import SETTLED, CallState, dispatch
from toolfx.core.pipeline._call import ToolCall
from toolfx.core.registry import Registry
from toolfx.core.runtime import DelegatingRuntime, Description
from toolfx.core.tools import ExecutionToken, ToolExecution, aborted

if TYPE_CHECKING:
    from toolfx.core.runtime import CancelSignal, RemoteRequest, RemoteRunner, Runtime
    from toolfx.core.tools import ToolDefinition, ToolExecutionResult

__all__ = ["remote_body"]


def remote_body(
    definition: ToolDefinition[Any, Any],
    request: RemoteRequest,
    signal: CancelSignal,
    deps: object = None,
) -> Description[ToolExecutionResult]:
    """The body of `request`'s call of `definition`, on `signal` (inert until interpreted).

    It gives the result the call's body makes, as a local call's body would (INVALID_ARGS if
    the worker's definition refuses the arguments, ABORTED_BEFORE_DISPATCH if the signal is
    set before the body starts); no hook, guard or observer runs here. `deps` are what the
    body sees as `ctx.deps` (a driver's dependencies do not travel).
    """

    async def program(given: Runtime) -> ToolExecutionResult:
        runtime = _HereOnly(given)
        if signal.is_cancelled():
            return aborted(request.tool, signal.reason, body_started=False)
        call = ToolCall(
            request.call_id,
            request.tool,
            request.arguments,
            signal,
            root_call_id=request.root_call_id,
        )
        execution = ToolExecution(
            request.call_id,
            request.root_call_id,
            request.tool,
            request.arguments,
            request.agent,
            ExecutionToken(),
            signal,
        )
        catalog = Registry().with_deps(deps).catalog()  # where the body's `ctx.deps` come from
        state = CallState(call, runtime, catalog, None, None, execution)
        dispatched = dispatch(runtime, definition, state)
        return dispatched if isinstance(dispatched, SETTLED) else await dispatched

    return Description(program)


@final
class _HereOnly(DelegatingRuntime):
    """The worker's runtime with no remote runner: a body sent here runs here, never onwards."""

    @property
    def remote(self) -> RemoteRunner | None:
        """None: no body is sent on from a worker."""
        return None
