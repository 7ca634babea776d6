"""Provider tool lists: a catalog's native tools in the shapes OpenAI, Anthropic and Gemini take.

Each export takes a Catalog (its `native_schemas()`: under the `code` presentation, only the
tools outside Code Mode) or any ToolSchemas, and gives `ProviderTools`: the tools as plain,
JSON-ready dicts (for `json.dumps` or the provider's SDK), and a `ToolNote` for every place
where what the provider gets differs from what the tool's schema enforces.

- `to_openai`: Chat Completions function tools. With `strict=True` each schema is rewritten
  for strict mode (see `_openai.py`) and sent with `"strict": true`; a tool that cannot
  be strict keeps its schema, gets `"strict": false`, and a note for each reason.
- `to_anthropic`: Messages API tools; the schema as it is, less `$schema`.
- `to_gemini`: function declarations in Gemini's schema subset (see `_gemini.py`), with
  a note for each keyword dropped.

Strict OpenAI arguments carry null where an optional property was left out: remove those nulls
before validating the call against the tool's own schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import final

from returns.result import Failure

from toolfx.core.json import FrozenJson, JsonValue, is_frozen_json, snapshot_json, thaw_json
from toolfx.core.jsonschema import SchemaProblem
from toolfx.core.providers._gemini import gemini_parameters
from toolfx.core.providers._openai import OPENAI_LIMITS, OpenAILimits, strict_parameters
from toolfx.core.registry import Catalog, ToolSchema

__all__ = ["ProviderTools", "ToolNote", "to_anthropic", "to_gemini", "to_openai"]

ToolSource = Catalog | Iterable[ToolSchema]
"""Where the tools come from: a catalog's native tools, or the schemas themselves."""


@final
@dataclass(frozen=True, slots=True)
class ToolNote:
    """Where one tool's export differs from its schema: the tool, a JSON pointer, and why."""

    tool: str
    path: str
    """A JSON pointer into the tool's own parameter schema ("" for the whole schema)."""
    reason: str

    def __str__(self) -> str:
        return f"{self.tool}: {self.path or '(root)'}: {self.reason}"


@final
@dataclass(frozen=True, slots=True)
class ProviderTools:
    """One provider's tool list, as plain JSON-ready dicts, and a note for every difference."""

    tools: tuple[dict[str, JsonValue], ...]
    notes: tuple[ToolNote, ...]


def to_openai(
    source: ToolSource, *, strict: bool = True, limits: OpenAILimits = OPENAI_LIMITS
) -> ProviderTools:
    """OpenAI function tools: strict where the schema allows it, each other tool noted."""

    def export(
        schema: ToolSchema, parameters: FrozenJson
    ) -> tuple[dict[str, JsonValue], list[SchemaProblem]]:
        converted, problems = strict_parameters(parameters, limits) if strict else (None, [])
        function: dict[str, JsonValue] = {
            "name": schema.name,
            "description": schema.description,
            "parameters": thaw_json(parameters) if converted is None else converted,
            "strict": converted is not None,
        }
        return {"type": "function", "function": function}, problems

    return _export(source, export)


def to_anthropic(source: ToolSource) -> ProviderTools:
    """Anthropic tools: each schema as it is, without `$schema` (which is noted)."""

    def export(
        schema: ToolSchema, parameters: FrozenJson
    ) -> tuple[dict[str, JsonValue], list[SchemaProblem]]:
        input_schema = thaw_json(parameters)
        problems = []
        if isinstance(input_schema, dict) and "$schema" in input_schema:
            del input_schema["$schema"]
            problems.append(SchemaProblem("/$schema", "Anthropic takes no $schema: dropped"))
        tool: dict[str, JsonValue] = {"name": schema.name, "description": schema.description}
        tool["input_schema"] = input_schema
        return tool, problems

    return _export(source, export)


def to_gemini(source: ToolSource) -> ProviderTools:
    """Gemini function declarations in Gemini's schema subset, each keyword dropped noted."""

    def export(
        schema: ToolSchema, parameters: FrozenJson
    ) -> tuple[dict[str, JsonValue], list[SchemaProblem]]:
        converted, problems = gemini_parameters(parameters)
        declaration: dict[str, JsonValue] = {"name": schema.name, "description": schema.description}
        if converted is not None:
            declaration["parameters"] = converted
        return declaration, problems

    return _export(source, export)


_Export = Callable[[ToolSchema, FrozenJson], tuple[dict[str, JsonValue], list[SchemaProblem]]]


def _export(source: ToolSource, export: _Export) -> ProviderTools:
    """Run one provider's export over every tool, gathering the tools and their notes."""
    schemas = source.native_schemas() if isinstance(source, Catalog) else tuple(source)
    tools: list[dict[str, JsonValue]] = []
    notes: list[ToolNote] = []
    for schema in schemas:
        tool, problems = export(schema, _frozen(schema))
        tools.append(tool)
        notes.extend(ToolNote(schema.name, p.path, p.reason) for p in problems)
    return ProviderTools(tuple(tools), tuple(notes))


def _frozen(schema: ToolSchema) -> FrozenJson:
    """A tool's parameter schema as frozen JSON (a catalog's already is)."""
    if is_frozen_json(schema.parameters):
        return schema.parameters
    snapshot = snapshot_json(schema.parameters)
    if isinstance(snapshot, Failure):
        raise ValueError(f"tool {schema.name!r}: parameters are not JSON: {snapshot.failure()}")
    return snapshot.unwrap()
