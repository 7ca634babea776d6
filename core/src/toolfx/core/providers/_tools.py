"""Provider tool lists: each tool exported once, each catalog snapshot's list made once.

A wire format (`openai_chat`, `openai_responses`, `anthropic_messages`, `gemini`) exports each
tool with `export_each` and keeps the list with the catalog's compiled view (`memoized`), so
asking again for the tools of an unchanged catalog costs a dictionary lookup. Each tool's export
is kept too, with the tool's schema (`ToolExport`): a snapshot one registration apart exports
only the new tool, and tools with equal parameter schemas convert them once per list. Every
place where what the provider gets differs from what the tool's schema enforces is a `ToolNote`,
made only when the notes are asked for (`notes_of`): a tool's export keeps its conversion's
problems, and most lists are sent without their notes ever being read.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar, final

from returns.result import Failure

from toolfx.core.json import FrozenDict, FrozenJson, is_frozen_json, snapshot_json

if TYPE_CHECKING:
    from toolfx.core.jsonschema import SchemaProblem
    from toolfx.core.registry import Catalog, ToolSchema

__all__ = ["ToolExport", "ToolNote", "export_each", "memoized", "notes_of"]

_Tool = TypeVar("_Tool")
_Made = TypeVar("_Made")
_Converted = TypeVar("_Converted")


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
class _Kept(weakref.ref["ToolSchema"], Generic[_Tool]):
    """A weak reference to a tool's schema carrying its export: gone with the schema (made as
    a plain weak reference, its three slots set after: no Python-level constructor to run)."""

    __slots__ = ("key", "problems", "tool")

    key: int
    """The schema's id, for the callback that drops the entry once the schema is gone."""
    tool: _Tool
    problems: tuple[SchemaProblem, ...]
    """Where the conversion differs from the schema (what the tool's notes are made of)."""


@final
class ToolExport(Generic[_Converted, _Tool]):
    """One wire format's export of a tool: `convert` turns a parameter schema into the
    provider's form, `assemble` makes the tool of it; each tool's export is kept by the identity
    of its schema (made once per registration) while the schema lives."""

    __slots__ = ("_drop", "_kept", "assemble", "convert")

    def __init__(
        self,
        convert: Callable[[FrozenJson], tuple[_Converted, list[SchemaProblem]]],
        assemble: Callable[[ToolSchema, _Converted], _Tool],
    ) -> None:
        self.convert = convert
        self.assemble = assemble
        kept: dict[int, _Kept[_Tool]] = {}

        def drop(gone: _Kept[_Tool]) -> None:  # one callback for every entry
            if kept.get(gone.key) is gone:  # not a later schema that reused the id
                del kept[gone.key]

        self._kept = kept
        self._drop = drop

    def kept(self, schema: ToolSchema) -> _Kept[_Tool] | None:
        """The export kept for this very schema object (`.tool`, `.problems`), if any."""
        kept = self._kept.get(id(schema))
        return kept if kept is not None and kept() is schema else None

    def keep(
        self, schema: ToolSchema, tool: _Tool, problems: tuple[SchemaProblem, ...]
    ) -> _Kept[_Tool]:
        """Keep the tool `schema` exports to, and its conversion's problems, until the schema
        is gone."""
        kept: _Kept[_Tool] = _Kept(schema, self._drop)
        kept.key = key = id(schema)
        kept.tool = tool
        kept.problems = problems
        self._kept[key] = kept
        return kept

    def __len__(self) -> int:
        return len(self._kept)


def export_each(schemas: Sequence[ToolSchema], export: ToolExport[Any, _Tool]) -> list[_Tool]:
    """Every tool's export, kept or made now and kept."""
    return [kept.tool for kept in _kept_each(schemas, export)]


def notes_of(schemas: Sequence[ToolSchema], export: ToolExport[Any, Any]) -> tuple[ToolNote, ...]:
    """Where the tools' exports differ from their schemas (each exported now if it is not
    kept)."""
    return tuple(
        ToolNote(schema.name, problem.path, problem.reason)
        for schema, kept in zip(schemas, _kept_each(schemas, export), strict=True)
        for problem in kept.problems
    )


def _kept_each(schemas: Sequence[ToolSchema], export: ToolExport[Any, _Tool]) -> list[_Kept[_Tool]]:
    """Every tool's kept export, made now where there is none; a parameter schema object
    several tools share is converted once (only those are held while the list is made: every
    object kept past a tool's own export is work for the garbage collector)."""
    out: list[_Kept[_Tool]] = []
    counted = Counter(map(id, map(_parameters_of, schemas)))
    shared = {key for key, count in counted.items() if count > 1}
    converted: dict[int, tuple[Any, list[SchemaProblem]]] = {}
    for schema in schemas:
        kept = export.kept(schema)
        if kept is None:
            parameters = schema.parameters
            if type(parameters) is not FrozenDict:  # a catalog's are: a raw schema's may not be
                parameters = _frozen(schema)
            key = id(parameters)
            if key not in shared:  # the schemas hold every shared parameter object meanwhile
                made, problems = export.convert(parameters)
            elif (found := converted.get(key)) is not None:
                made, problems = found
            else:
                made, problems = converted[key] = export.convert(parameters)
            tool = export.assemble(schema, made)
            kept = export.keep(schema, tool, tuple(problems) if problems else ())
        out.append(kept)
    return out


_parameters_of: Final = attrgetter("parameters")


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
