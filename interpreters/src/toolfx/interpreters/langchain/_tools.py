"""A toolfx Location or Catalog as LangChain tools, every call run through the whole pipeline.

Each tool offers the toolfx tool's name, description and JSON Schema (`args_schema` as a dict,
so LangChain passes the model's arguments on untouched and toolfx alone validates them). A call
takes the catalog (a Location's is taken fresh for every call), builds a `ToolCall` whose id is
LangChain's tool call id, and runs `execute` on the anyio interpreter with a fresh runtime wrapped
so that asks go to LangGraph's human in the loop (see `_asks.py`). The answer is a `ToolMessage`
(`status="error"` for a failure, the value or failure as its artifact) when the tool is invoked
with a tool call, as LangGraph's ToolNode does, and the message content alone otherwise.

`ainvoke` runs on the caller's event loop (asyncio, as LangChain needs). `invoke` runs the call
on a new asyncio event loop in the calling thread, which is what LangGraph's sync runs give it;
called inside a running event loop it refuses, naming `ainvoke`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, final

import anyio
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from pydantic import PrivateAttr

from toolfx.core import (
    CancelSignal,
    Catalog,
    Location,
    RecordSink,
    Runtime,
    ToolCall,
    ToolExecutionResult,
    ToolSchema,
    execute,
    thaw_json,
)
from toolfx.interpreters._framework_asks import FrameworkRuntime
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.langchain._approval_records import RecordedApprovals
from toolfx.interpreters.langchain._asks import decide_in_graph, graph_task
from toolfx.interpreters.langchain._content import (
    MessageContent,
    message_content,
    tool_message,
)
from toolfx.interpreters.langchain._shared_tasks import TASKS, SharedTask, TaskKey

__all__ = ["tools"]

_INPUT = "toolfx_input"
"""The one keyword LangChain passes `_run`: the raw input and the tool call id, untouched."""


def tools(
    source: Location | Catalog,
    *,
    scope: str | None = None,
    runtime: Callable[[], Runtime] | None = None,
    sink: RecordSink | None = None,
) -> list[BaseTool]:
    """The tools `source` offers its model now, as LangChain tools running toolfx's pipeline.

    `scope` picks a Location's scope; `runtime` makes each call's runtime (`AnyioRuntime()`
    unless given: its approvals answer the asks outside LangGraph); `sink` gets the durable
    records, each ask's answer (`tool/approval`) among them.
    """
    if isinstance(source, Catalog) and scope is not None:
        raise ValueError("`scope` picks a Location's scope: a Catalog is already one scope's view")
    pipeline = _Pipeline(source, scope, runtime, sink)
    return [_PipelineTool(schema, pipeline) for schema in pipeline.catalog().native_schemas()]


@final
@dataclass(frozen=True, slots=True)
class _Pipeline:
    """Where calls run: the tools' source, scope, runtime factory and record sink."""

    source: Location | Catalog
    scope: str | None
    runtime: Callable[[], Runtime] | None
    sink: RecordSink | None

    def catalog(self) -> Catalog:
        """The catalog a call runs against now."""
        source = self.source
        return source if isinstance(source, Catalog) else source.catalog(self.scope)

    async def run(
        self, name: str, raw: object, call_id: str | None
    ) -> ToolMessage | MessageContent:
        """Call tool `name` with the model's `raw` arguments through the whole pipeline.

        A call known by its tool call id, in a LangGraph task under a checkpointer, is refused
        (a DENIED failure, before its effect) where it would share an interrupted task with
        another call (see `_shared_tasks.py`).
        """
        task = None if call_id is None else graph_task()
        refused = None if task is None or call_id is None else TASKS.start(task, call_id)
        result = (
            refused.failure()
            if refused is not None
            else await self._execute(task, name, raw, call_id)
        )
        if call_id is None:
            return message_content(result.content)
        return tool_message(result, call_id, name)

    async def _execute(
        self, task: TaskKey | None, name: str, raw: object, call_id: str | None
    ) -> ToolExecutionResult:
        call = ToolCall(call_id or _fresh_id(), name, raw, CancelSignal())
        inner = AnyioRuntime() if self.runtime is None else self.runtime()
        asks = FrameworkRuntime(inner, partial(decide_in_graph, task))
        runtime = asks if self.sink is None else RecordedApprovals(asks, self.sink)
        result = await run_anyio_async(execute(self.catalog(), call, self.sink), runtime)
        if isinstance(asks.interruption, SharedTask):
            return asks.interruption.failure()
        asks.raise_interruption()
        return result


@final
class _PipelineTool(BaseTool):
    """One toolfx tool as a LangChain tool."""

    _pipeline: _Pipeline = PrivateAttr()

    def __init__(self, schema: ToolSchema, pipeline: _Pipeline) -> None:
        super().__init__(
            name=schema.name,
            description=schema.description,
            args_schema=thaw_json(schema.parameters),
        )
        self._pipeline = pipeline

    def _parse_input(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> dict[str, Any]:
        """The input as given (toolfx validates it) with the call id, for `_run` and `_arun`."""
        return {_INPUT: (tool_input, tool_call_id)}

    def _run(self, **given: tuple[object, str | None]) -> ToolMessage | MessageContent:
        """Run the call on a new event loop in this thread (refused inside a running loop)."""
        raw, call_id = given[_INPUT]
        if _loop_running():
            raise RuntimeError(
                f"the toolfx tool {self.name!r} was invoked synchronously inside a running "
                "event loop: call it with `ainvoke` (in LangGraph, run the graph with `ainvoke`)"
            )
        return anyio.run(self._pipeline.run, self.name, raw, call_id)

    async def _arun(self, **given: tuple[object, str | None]) -> ToolMessage | MessageContent:
        """Run the call on the caller's event loop."""
        raw, call_id = given[_INPUT]
        return await self._pipeline.run(self.name, raw, call_id)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _fresh_id() -> str:
    return f"langchain-{uuid.uuid4().hex}"
