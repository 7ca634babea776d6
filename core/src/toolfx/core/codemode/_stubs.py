"""Code Mode stubs: each tool a keyword-only `async def` a program calls, typed from its schemas.

`code_stubs` writes one Python module: the `typing` imports, the TypedDict declarations the types
need, then per tool (in the order given)

    async def read_file(
        *,
        path: str,  # the property's description, on one line
        limit: int = ...,
    ) -> ReadFileOutput:
        \"\"\"The tool's description.\"\"\"
        ...

Required properties have no default; optional ones default to `...` (the stub convention for "has
a default"): a program that leaves one out sends no value, where `None` would send a JSON null the
schema may refuse. Properties beyond `properties` are no parameters; a tool without an output
schema returns `Any`. Names that are not usable identifiers are mapped (see `_identifiers`): tool
and type names avoid keywords, soft keywords, builtins, the stub's imports, `typing`, `asyncio`
and leading underscores (the checker star-imports the stubs); argument names avoid only hard
keywords, since a parameter is local to its signature (annotations resolve in the module) and a
program writes `search(type="x")` naturally. The description is the docstring exactly
(`ast.get_docstring(f, clean=False)`; the default cleaning also strips indentation); non-printable
characters are written as escapes (see `_literals`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, final

from toolfx.core.codemode._identifiers import (
    STUB_IMPORTS,
    Namespace,
    is_argument_reserved,
    is_module_reserved,
    pascal_name,
)
from toolfx.core.codemode._literals import comment_text, docstring_literal
from toolfx.core.codemode._types import ANY, Budget, Declarations, SchemaTypes, local_target

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson

__all__ = ["CodeStubs", "StubTool", "code_stubs"]

_HEADER: Final = f"from typing import {', '.join(STUB_IMPORTS)}\n\n"
_ROOT_HOPS: Final = 8


@final
@dataclass(frozen=True, slots=True)
class StubTool:
    """One Code Mode tool as the stubs see it."""

    name: str
    description: str
    parameters: FrozenJson
    output: FrozenJson | None = None


@final
@dataclass(frozen=True, slots=True)
class CodeStubs:
    """The stubs of a catalog's Code Mode tools and the names they use."""

    text: str
    functions: Mapping[str, str]
    arguments: Mapping[str, Mapping[str, str]]


def _arguments_schema(parameters: object) -> tuple[Mapping[str, object], frozenset[str]]:
    """The properties and required names of a parameters schema (following root `$ref`s)."""
    node = parameters
    for _ in range(_ROOT_HOPS):
        if not isinstance(node, Mapping):
            break
        reference = node.get("$ref")
        if not (isinstance(reference, str) and reference.startswith("#/")):
            break
        node = local_target(parameters, reference)
    if not isinstance(node, Mapping):
        return {}, frozenset()
    properties = node.get("properties")
    required = node.get("required")
    names = (
        frozenset(r for r in required if isinstance(r, str))
        if isinstance(required, Sequence) and not isinstance(required, str)
        else frozenset()
    )
    if not isinstance(properties, Mapping):
        return {}, names
    return {k: v for k, v in properties.items() if isinstance(k, str)}, names


def _function(
    identifier: str,
    tool: StubTool,
    declarations: Declarations,
) -> tuple[list[str], dict[str, str]]:
    """One tool's `async def` lines and its argument identifiers (identifier -> property)."""
    budget = Budget()
    stem = pascal_name((identifier,))
    properties, required = _arguments_schema(tool.parameters)
    names = Namespace(is_argument_reserved, public=False).allocate_all(properties)
    inputs = SchemaTypes(tool.parameters, (stem, "Arguments"), declarations, budget)
    lines = [f"async def {identifier}(", "    *,"]
    for key, schema in properties.items():
        annotation = inputs.annotation(schema, (stem, key), 1)
        default = "" if key in required else " = ..."
        described = schema.get("description") if isinstance(schema, Mapping) else None
        note = f"  # {comment_text(described)}" if isinstance(described, str) else ""
        lines.append(f"    {names[key]}: {annotation}{default},{note}")
    output = ANY
    if tool.output is not None:
        outputs = SchemaTypes(tool.output, (stem, "Output"), declarations, budget)
        output = outputs.annotation(tool.output, (stem, "Output"), 0)
    head = f") -> {output}:"
    if properties:
        lines.append(head)
    else:
        lines = [f"async def {identifier}({head}"]
    lines.append(f"    {docstring_literal(tool.description)}")
    lines.append("    ...")
    lines.append("")
    return lines, {names[key]: key for key in properties}


def code_stubs(tools: Sequence[StubTool]) -> CodeStubs:
    """The stub module for `tools` (distinct names) and the identifiers it maps back.

    Raises:
        ValueError: two tools share a name.
    """
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise ValueError(f"two Code Mode tools are named {tool.name!r}")
        seen.add(tool.name)
    module = Namespace(is_module_reserved, public=True)
    identifiers = module.allocate_all(tool.name for tool in tools)
    declarations = Declarations(module)
    functions: dict[str, str] = {}
    arguments: dict[str, Mapping[str, str]] = {}
    for tool in tools:
        identifier = identifiers[tool.name]
        lines, mapped = _function(identifier, tool, declarations)
        declarations.lines.extend(lines)
        functions[identifier] = tool.name
        arguments[identifier] = MappingProxyType(mapped)
    return CodeStubs(
        _HEADER + "\n".join(declarations.lines),
        MappingProxyType(functions),
        MappingProxyType(arguments),
    )
