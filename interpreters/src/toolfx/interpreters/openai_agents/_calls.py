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

from toolfx.core.pipeline import execute
from toolfx.core.providers import model_call
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, Runtime
from toolfx.interpreters._framework_asks import AskLedger, FrameworkRuntime, bounded
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
        # the SDK gives the text (`on_invoke_tool`) or its parsed object (`needs_approval`)
        call = model_call(call_id, name, given, catalog, strict_nulls=name in self.strict)
        return await run_anyio_async(execute(catalog, call, self._sink), runtime)

    def _keep(self, call_id: str, finished: _Finished) -> None:
        bounded(self._finished)[call_id] = finished
