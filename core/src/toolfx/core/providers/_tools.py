"""Provider tool lists: each of a catalog's native tools exported once per catalog snapshot.

A wire format (`openai_chat`, `openai_responses`, `anthropic_messages`, `gemini`) exports each
tool with `export_each` and keeps what it made with the catalog's compiled view (`memoized`), so
asking again for the tools of an unchanged catalog costs a dictionary lookup. Every place where
what the provider gets differs from what the tool's schema enforces is a `ToolNote`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, final

from returns.result import Failure

from toolfx.core.json import FrozenJson, is_frozen_json, snapshot_json

if TYPE_CHECKING:
    from toolfx.core.jsonschema import SchemaProblem
    from toolfx.core.registry import Catalog, ToolSchema

__all__ = ["ToolNote", "export_each", "memoized"]

_Tool = TypeVar("_Tool")
_Made = TypeVar("_Made")


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


def export_each(
    schemas: Iterable[ToolSchema],
    export: Callable[[ToolSchema, FrozenJson], tuple[_Tool, list[SchemaProblem]]],
) -> tuple[list[_Tool], tuple[ToolNote, ...]]:
    """Run one provider's export over every tool, gathering the tools and their notes."""
    tools: list[_Tool] = []
    notes: list[ToolNote] = []
    for schema in schemas:
        tool, problems = export(schema, _frozen(schema))
        tools.append(tool)
        notes.extend(ToolNote(schema.name, p.path, p.reason) for p in problems)
    return tools, tuple(notes)


def memoized(catalog: Catalog, kind: type[_Made], make: Callable[[Catalog], _Made]) -> _Made:
    """What `make` gives for this catalog's snapshot, made once and kept with it (by `kind`)."""
    kept = catalog.view.derived
    found = kept.get(kind)
    if isinstance(found, kind):
        return found
    made = make(catalog)
    kept[kind] = made
    return made


def _frozen(schema: ToolSchema) -> FrozenJson:
    """A tool's parameter schema as frozen JSON (a catalog's already is)."""
    if is_frozen_json(schema.parameters):
        return schema.parameters
    snapshot = snapshot_json(schema.parameters)
    if isinstance(snapshot, Failure):
        raise ValueError(f"tool {schema.name!r}: parameters are not JSON: {snapshot.failure()}")
    return snapshot.unwrap()
