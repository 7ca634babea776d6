"""From a server's tool list to toolfx definitions, with a report of every renamed or skipped tool.

Each tool gets a model-facing name (see `_names.py`). Its input and output schemas are checked with
the `full` profile after a known `$schema` dialect URI is set aside; a schema the validator would
not fully enforce (an unknown keyword, an unchecked format, ...) skips the tool, with every
problem in the notice. The first tool to claim a model-facing name gets it; a later one, or one
whose name a tool from elsewhere holds in the Location, is skipped with a notice naming both.
A tool whose `readOnlyHint` is true may run in parallel with other parallel-safe calls; one whose
`readOnlyHint` or `idempotentHint` is true is idempotent (run again after a crash). A tool
whose `execution.taskSupport` is `required` (2025-11-25) is skipped with a notice: this client
does not run tools as MCP tasks (the SDK's client has no tasks support), and offering it to the
model would only get the call refused; `optional` ones are called as plain calls.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, final

import mcp_types as types
from returns.result import Failure, Result, Success

from toolfx.core.json import FrozenJson, JsonValue
from toolfx.core.jsonschema import CompiledSchema, JsonSchemaError, compile_json_schema
from toolfx.core.registry import Registry, RegistryError, RegistryErrorKind, ScopeKey
from toolfx.core.schema import ValueSchema, raw_schema
from toolfx.core.tools import Output, ToolDefinition, ToolOptions, ToolRunContext
from toolfx.leaves.mcp._names import tool_name
from toolfx.leaves.mcp._results import McpOutcome

__all__ = ["DIALECTS", "McpBody", "McpNotice", "McpToolsReport", "ToolPlan", "plan_tools"]

McpBody = Callable[[FrozenJson, ToolRunContext], Awaitable[McpOutcome]]
"""The body of one registered MCP tool."""

DIALECTS: Final = frozenset(
    f"json-schema.org/{draft}/schema"
    for draft in ("draft-04", "draft-06", "draft-07", "draft/2019-09", "draft/2020-12")
)
"""`$schema` URIs (any scheme, with or without `#`) set aside before checking with `full`."""

_OUTPUT: Final[Output[FrozenJson, JsonValue]] = Output(JsonValue)


@final
@dataclass(frozen=True, slots=True)
class McpNotice:
    """Why one server tool is registered under another name, or not registered at all."""

    kind: Literal["renamed", "skipped"]
    tool: str
    message: str

    def __str__(self) -> str:
        return self.message


@final
@dataclass(frozen=True, slots=True)
class McpToolsReport:
    """One registration of a server's tools: (model-facing name, server name) pairs, notices."""

    namespace: str
    tools: tuple[tuple[str, str], ...]
    notices: tuple[McpNotice, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The model-facing names registered, in the server's order."""
        return tuple(name for name, _ in self.tools)

    @property
    def skipped(self) -> tuple[McpNotice, ...]:
        """The notices of the tools that were not registered."""
        return tuple(notice for notice in self.notices if notice.kind == "skipped")


@final
@dataclass(frozen=True, slots=True)
class ToolPlan:
    """The definitions to register for a server and the report that goes with them."""

    definitions: tuple[ToolDefinition[FrozenJson, JsonValue], ...]
    report: McpToolsReport


def plan_tools(
    listed: Sequence[types.Tool],
    *,
    namespace: str,
    timeout: float,
    body: Callable[[str, CompiledSchema | None], McpBody],
    registry: Registry,
    scope: ScopeKey | None,
    owned: frozenset[str],
) -> ToolPlan:
    """Definitions for the listed tools; `owned` are the names this server holds in `registry`."""
    definitions: list[ToolDefinition[FrozenJson, JsonValue]] = []
    registered: list[tuple[str, str]] = []
    notices: list[McpNotice] = []
    holders: dict[str, str] = {}  # model-facing name -> the server tool that has it
    for tool in listed:
        name = tool_name(namespace, tool.name)
        flat = f"{namespace}_{name.name}"
        about = f"MCP server '{namespace}': tool '{tool.name}'"
        built = _definition(tool, name.name, namespace, timeout, body)
        if isinstance(built, str):
            notices.append(_skipped(about, tool, built))
            continue
        holder = holders.get(flat)
        why = (
            _clash(registry, built, scope, owned)
            if holder is None
            else f"its model-facing name '{flat}' is already taken by its tool '{holder}'"
        )
        if why is not None:
            notices.append(_skipped(about, tool, why))
            continue
        holders[flat] = tool.name
        definitions.append(built)
        registered.append((flat, tool.name))
        changes = _renaming(name.sanitised, name.shortened)
        if changes:
            message = f"{about} is registered as '{flat}': {changes}"
            notices.append(McpNotice("renamed", tool.name, message))
    report = McpToolsReport(namespace, tuple(registered), tuple(notices))
    return ToolPlan(tuple(definitions), report)


def _skipped(about: str, tool: types.Tool, why: str) -> McpNotice:
    return McpNotice("skipped", tool.name, f"{about} is skipped: {why}")


def _definition(
    tool: types.Tool,
    name: str,
    namespace: str,
    timeout: float,
    body: Callable[[str, CompiledSchema | None], McpBody],
) -> ToolDefinition[FrozenJson, JsonValue] | str:
    """The definition of one tool, or why its schemas cannot be trusted."""
    parameters = raw_schema(_without_dialect(tool.input_schema))
    output: Result[CompiledSchema | None, JsonSchemaError] = Success(None)
    if tool.output_schema is not None:
        output = compile_json_schema(_without_dialect(tool.output_schema), "full")
    problems = [
        f"its {which} schema would not be fully enforced: {checked.failure()}"
        for which, checked in (("input", parameters), ("output", output))
        if isinstance(checked, Failure)
    ]
    if problems:
        return "; and ".join(problems)
    if tool.execution is not None and tool.execution.task_support == "required":
        return (
            "it must be called as an MCP task (its execution.taskSupport is 'required'), "
            "and this client does not run tools as tasks"
        )
    hints = tool.annotations
    read_only = hints is not None and hints.read_only_hint is True
    idempotent = read_only or (hints is not None and hints.idempotent_hint is True)
    schema: ValueSchema[FrozenJson] = parameters.unwrap()
    if not (isinstance(schema.json_schema, dict) and schema.json_schema.get("type") == "object"):
        return 'its input schema must describe an object ("type": "object")'
    return ToolDefinition(
        name=name,
        description=tool.description or tool.title or "",
        parameters=schema,
        output=_OUTPUT,
        execute=body(tool.name, output.unwrap()),
        timeout=timeout,
        is_concurrency_safe=read_only,
        options=ToolOptions(namespace=namespace, idempotent=idempotent),
    )


def _clash(
    registry: Registry,
    definition: ToolDefinition[Any, Any],
    scope: ScopeKey | None,
    owned: frozenset[str],
) -> str | None:
    """Why the Location would refuse the definition (a name this server holds is no clash)."""
    try:
        registry.register(definition, scope)
    except RegistryError as error:
        mine = f"{definition.options.namespace}_{definition.name}" in owned
        return None if mine and error.kind is RegistryErrorKind.ALREADY_REGISTERED else str(error)
    return None


def _renaming(sanitised: bool, shortened: bool) -> str:
    reasons = []
    if sanitised:
        reasons.append("characters other than A-Z, a-z, 0-9, '_' and '-' became '_'")
    if shortened:
        reasons.append(
            "model-facing names are capped at 64 characters, so it was cut and ends with "
            "a hash of its full name"
        )
    return "; ".join(reasons)


def _without_dialect(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    dialect = schema.get("$schema")
    if not isinstance(dialect, str) or dialect.split("://", 1)[-1].rstrip("#") not in DIALECTS:
        return schema
    return {key: value for key, value in schema.items() if key != "$schema"}
