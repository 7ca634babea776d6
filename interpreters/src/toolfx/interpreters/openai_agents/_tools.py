"""A toolfx catalog as Agents SDK function tools, every call through toolfx's whole pipeline."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agents import FunctionTool
from agents.tool import set_function_tool_failure_error_function

from toolfx.core.providers import openai_chat
from toolfx.core.records import RecordSink
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import Runtime
from toolfx.interpreters.openai_agents._calls import AgentsCalls

if TYPE_CHECKING:
    from toolfx.core.registry import ToolSchema

__all__ = ["function_tools"]


def function_tools(
    source: Location | Catalog,
    *,
    scope: str | None = None,
    runtime: Callable[[], Runtime] | None = None,
    sink: RecordSink | None = None,
) -> list[FunctionTool]:
    """The catalog's tools as Agents SDK function tools running toolfx's pipeline.

    A Location's catalog (for `scope`) is taken fresh for every call; each call runs on a fresh
    `runtime()` (default `AnyioRuntime()`) and writes its records to `sink`. An ask a call makes
    interrupts the run for the SDK's approval (`result.interruptions`, `state.approve` or
    `state.reject`, then `Runner.run(agent, state)`); schemas are strict where toolfx can make
    them strict.
    """
    calls = AgentsCalls(source, scope, runtime, sink)
    catalog = calls.catalog()
    return [
        _function_tool(calls, schema, exported)
        for schema, exported in zip(
            catalog.native_schemas(), openai_chat.tools(catalog), strict=True
        )
    ]


def _function_tool(
    calls: AgentsCalls, schema: ToolSchema, exported: openai_chat.ChatTool
) -> FunctionTool:
    """One tool: its strict parameters where `openai_chat.tools` made them strict, else its own.

    It has no `failure_error_function`: a toolfx failure is already the text the model reads, and
    what escapes toolfx (an interrupt) must reach the run, not become the SDK's generic text.
    """
    function = exported["function"]
    parameters, strict = dict(function["parameters"]), function["strict"] is True
    if strict:
        calls.strict.add(schema.name)
    tool = FunctionTool(
        name=schema.name,
        description=schema.description,
        params_json_schema=parameters,
        on_invoke_tool=calls.invoke_of(schema.name),
        strict_json_schema=strict,
        needs_approval=calls.needs_approval_of(schema.name),
    )
    return set_function_tool_failure_error_function(tool, None)
