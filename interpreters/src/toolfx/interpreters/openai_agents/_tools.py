"""A toolfx catalog as Agents SDK function tools, every call through toolfx's whole pipeline."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agents import FunctionTool

from toolfx.core.providers import to_openai
from toolfx.core.records import RecordSink
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import Runtime
from toolfx.interpreters.openai_agents._calls import AgentsCalls

if TYPE_CHECKING:
    from toolfx.core.json import JsonValue
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
    schemas = calls.catalog().native_schemas()
    return [
        _function_tool(calls, schema, exported)
        for schema, exported in zip(schemas, to_openai(schemas).tools, strict=True)
    ]


def _function_tool(
    calls: AgentsCalls, schema: ToolSchema, exported: dict[str, JsonValue]
) -> FunctionTool:
    """One tool: its strict parameters where `to_openai` made them strict, else its own."""
    match exported:
        case {"function": {"parameters": dict() as parameters, "strict": bool() as strict}}:
            if strict:
                calls.strict.add(schema.name)
        case _:  # `to_openai` gives every tool this shape
            raise TypeError(f"tool {schema.name!r}: unexpected export {exported!r}")
    return FunctionTool(
        name=schema.name,
        description=schema.description,
        params_json_schema=parameters,
        on_invoke_tool=calls.invoke_of(schema.name),
        strict_json_schema=strict,
        needs_approval=calls.needs_approval_of(schema.name),
    )
