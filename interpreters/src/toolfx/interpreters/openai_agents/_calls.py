"""One toolfx catalog's calls made from Agents SDK function tools, asks answered by its approvals.

The SDK decides whether a call needs approval (`needs_approval`) before it invokes the tool,
while toolfx's asks come from inside the pipeline. So `needs_approval` runs the call: every ask
the ledger has no answer for is held (the call ends ABORTED before its effect) and the SDK is
told to interrupt (a `ToolApprovalItem` in `result.interruptions`); a call that asked nothing
unseen has finished, and its result waits for `on_invoke_tool`, which returns it without
running the call again. After `state.approve(item)` the SDK skips `needs_approval` and invokes
the tool: the call runs again with the held ask, and any later one, answered `allowed-once` (the
human approved the call). After `state.reject(item)` the SDK never invokes the tool and tells
the model its own rejection message. So every effect runs once, and a call interrupts again
only while the human has not answered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, final

from returns.result import Failure

from toolfx.core.json import parse_json, snapshot_json
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.providers import undo_strict_nulls
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal, Runtime
from toolfx.interpreters._framework_asks import MAX_OPEN_CALLS, AskLedger, FrameworkRuntime
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.openai_agents._output import AgentsOutput, agents_output

if TYPE_CHECKING:
    from agents import RunContextWrapper, ToolContext

    from toolfx.core.records import RecordSink
    from toolfx.core.tools import ToolExecutionResult

__all__ = ["AgentsCalls"]


class _Held(Exception):
    """An ask the framework's human has not answered yet (held by `FrameworkRuntime`)."""


@final
@dataclass(frozen=True, slots=True)
class _Finished:
    """A call `needs_approval` ran to its end, kept for `on_invoke_tool` to return."""

    name: str
    result: ToolExecutionResult


@final
class AgentsCalls:
    """The calls of one `function_tools(...)`: its catalog, runtimes, sink, asks and results."""

    __slots__ = ("_finished", "_ledger", "_runtime", "_scope", "_sink", "_source", "strict")

    def __init__(
        self,
        source: Location | Catalog,
        scope: str | None,
        runtime: Callable[[], Runtime] | None,
        sink: RecordSink | None,
    ) -> None:
        self._source = source
        self._scope = scope
        self._runtime: Callable[[], Runtime] = AnyioRuntime if runtime is None else runtime
        self._sink = sink
        self._ledger = AskLedger()
        self._finished: dict[str, _Finished] = {}
        self.strict: set[str] = set()
        """The tools exported in strict mode (their calls' nulls are undone)."""

    def catalog(self) -> Catalog:
        """The catalog a call runs against: a Location's, taken fresh for every call."""
        source = self._source
        return source.catalog(self._scope) if isinstance(source, Location) else source

    def needs_approval_of(
        self, name: str
    ) -> Callable[[RunContextWrapper[Any], dict[str, Any], str], Awaitable[bool]]:
        """The tool's `needs_approval`: run the call; True if it holds an unanswered ask."""

        async def needs_approval(
            context: RunContextWrapper[Any], arguments: dict[str, Any], call_id: str
        ) -> bool:
            def decide(request: ApprovalRequest) -> ApprovalReply:
                reply = self._ledger.answer(call_id, request)
                if reply is None:
                    raise _Held(self._ledger.pend(call_id, request).describe())
                return reply

            runtime = FrameworkRuntime(self._runtime(), decide)
            result = await self._run(runtime, name, call_id, arguments)
            if runtime.interruption is not None:
                return True
            self._keep(call_id, _Finished(name, result))
            return False

        return needs_approval

    def invoke_of(self, name: str) -> Callable[[ToolContext[Any], str], Awaitable[AgentsOutput]]:
        """The tool's `on_invoke_tool`: the result `needs_approval` kept, or the call run now."""

        async def invoke(context: ToolContext[Any], arguments: str) -> AgentsOutput:
            call_id = context.tool_call_id
            finished = self._finished.pop(call_id, None)
            if finished is not None and finished.name == name:
                return agents_output(finished.result)
            approved = context.is_tool_approved(name, call_id) is True
            if approved:
                self._ledger.settle(call_id, "allowed-once")

            def decide(request: ApprovalRequest) -> ApprovalReply | None:
                reply = self._ledger.answer(call_id, request)
                return "allowed-once" if reply is None and approved else reply

            runtime = FrameworkRuntime(self._runtime(), decide)
            result = await self._run(runtime, name, call_id, arguments)
            self._ledger.forget(call_id)
            return agents_output(result)

        return invoke

    async def _run(
        self, runtime: Runtime, name: str, call_id: str, given: str | Mapping[str, object]
    ) -> ToolExecutionResult:
        catalog = self.catalog()
        call = self._call(catalog, name, call_id, given)
        return await run_anyio_async(execute(catalog, call, self._sink), runtime)

    def _call(
        self, catalog: Catalog, name: str, call_id: str, given: str | Mapping[str, object]
    ) -> ToolCall:
        """The call, from the arguments as the SDK gives them: its text (`on_invoke_tool`; blank
        is an empty object, text that is not JSON fails INVALID_ARGS) or its parsed object
        (`needs_approval`). A strict tool's strict-mode nulls are undone in either form."""
        signal = CancelSignal()
        if isinstance(given, str):
            parsed = parse_json(given if given.strip() else "{}")
            if isinstance(parsed, Failure):
                return ToolCall.unparsed(call_id, name, given, parsed.failure(), signal)
        else:
            parsed = snapshot_json(given)
            if isinstance(parsed, Failure):  # not JSON: the call itself says so (INVALID_ARGS)
                return ToolCall(call_id, name, given, signal)
        arguments = parsed.unwrap()
        registration = catalog.direct(name) if name in self.strict else None
        if registration is not None:
            schema = registration.definition.parameters.json_schema
            arguments = undo_strict_nulls(schema, arguments)
        return ToolCall(call_id, name, arguments, signal)

    def _keep(self, call_id: str, finished: _Finished) -> None:
        while len(self._finished) >= MAX_OPEN_CALLS:
            del self._finished[next(iter(self._finished))]
        self._finished[call_id] = finished
