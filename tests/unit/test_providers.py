"""Provider tool lists: golden files for OpenAI (strict), Anthropic and Gemini, each
tool checked by the provider's own SDK types offline, and the rules behind each export.

Regenerate the goldens with TOOLFX_UPDATE_GOLDENS=1 (then read the diff).
"""

from __future__ import annotations

import copy
import enum
import gc
import json
import os
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Literal, NotRequired, TypedDict, cast

import pydantic
import pytest
from anthropic.types import ToolParam
from google.genai.types import FunctionDeclaration
from openai.lib._pydantic import _ensure_strict_json_schema
from openai.types.chat import ChatCompletionFunctionToolParam
from returns.result import Success

import toolfx.core.providers._openai as strict_rewrite
from toolfx.core.json import JsonValue, snapshot_json, thaw_json
from toolfx.core.jsonschema import check_json_schema, compile_json_schema
from toolfx.core.providers import (
    ToolNote,
    _tools,
    anthropic_messages,
    gemini,
    openai_chat,
    openai_responses,
    undo_strict_nulls,
)
from toolfx.core.providers._gemini import gemini_parameters
from toolfx.core.providers._openai import OpenAILimits
from toolfx.core.providers._openai_tools import openai_parameters
from toolfx.core.providers._schema import _MADE_LONGEST, _MADE_MOST, _made, problem_at
from toolfx.core.providers._tools import ToolExport, export_each, notes_of
from toolfx.core.providers.anthropic_messages._messages import _EXPORT as anthropic_tool
from toolfx.core.providers.gemini._generate import _EXPORT as gemini_declaration
from toolfx.core.providers.openai_chat._chat import _EXPORT as openai_tool
from toolfx.core.registry import Catalog, Location, Registry, ToolSchema
from toolfx.core.schema import schema_of
from toolfx.core.tools import Output, ToolOptions, define_tool

GOLDENS: Final = Path(__file__).parent / "goldens" / "providers"
UPDATE: Final = os.environ.get("TOOLFX_UPDATE_GOLDENS") == "1"


# --- the tools: derived from types ----------------------------------------------------------------


class Unit(enum.Enum):
    """Temperature units."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@dataclass(frozen=True)
class Place:
    """Where to look."""

    city: Annotated[str, "a city name"]
    country: str | None = None


class ForecastArgs(TypedDict):
    """Arguments of the forecast tool."""

    place: Place
    days: Annotated[int, "how many days ahead"]
    unit: NotRequired[Unit]
    detail: NotRequired[Literal["brief", "full"]]
    hours: NotRequired[list[int]]
    label: NotRequired[str | int]


class Move(TypedDict):
    kind: Literal["move"]
    to: str


@dataclass(frozen=True)
class Copy:
    kind: Literal["copy"]
    to: str
    overwrite: bool = False


class FileArgs(TypedDict):
    """Move or copy one file."""

    path: str
    action: Move | Copy


class AnnotateArgs(TypedDict):
    """Attach free-form labels."""

    target: str
    labels: dict[str, JsonValue]
    extra: NotRequired[JsonValue]


class NoArgs(TypedDict):
    """No arguments."""


def _tool(name: str, description: str, parameters: Any, *, codemode: bool = True) -> Any:
    return define_tool(
        name=name,
        description=description,
        parameters=parameters,
        output=Output(str),
        execute=lambda args, ctx: "",
        options=ToolOptions(codemode=codemode),
    )


DERIVED: Final = (
    _tool("forecast", "The weather ahead.", ForecastArgs),
    _tool("file_op", "Move or copy a file.", FileArgs),
    _tool("annotate", "Label a target.", AnnotateArgs),
    _tool("ping", "Check the service is up.", NoArgs),
)


def catalog_of(*definitions: Any) -> Any:
    """The global catalog of a registry holding these tools."""
    registry = Registry()
    for definition in definitions:
        registry, _ = registry.register(definition)
    return registry.catalog()


# --- the tools: raw schemas (as an MCP server would send them) ------------------------------------

TREE: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"root": {"$ref": "#/$defs/node", "description": "the tree's root"}},
    "required": ["root"],
    "additionalProperties": False,
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["name"],
            "additionalProperties": False,
        }
    },
}
LOOKUP: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "email": {"type": "string", "format": "email", "pattern": "^[^@]+@example\\.com$"},
        "id": {"type": "string", "format": "uuid"},
        "since": {"type": "string", "format": "date-time"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
        "fields": {
            "type": "array",
            "items": {"type": "string", "enum": ["name", "email", "role"]},
            "minItems": 1,
            "maxItems": 3,
        },
        "version": {"const": 2},
    },
    "required": ["email"],
}
LEGACY: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        "amount": {"oneOf": [{"type": "number"}, {"type": "integer"}]},
        "code": {"allOf": [{"type": "string"}, {"maxLength": 5}]},
    },
    "required": ["name"],
}
RAW: Final = (
    ToolSchema("tree", "Walk a tree.", snapshot_json(TREE).unwrap()),
    ToolSchema("lookup", "Find a user.", snapshot_json(LOOKUP).unwrap()),
    ToolSchema("legacy", "An old tool.", snapshot_json(LEGACY).unwrap()),
)


def all_schemas() -> tuple[ToolSchema, ...]:
    """The derived tools (as a catalog shows them) and then the raw ones."""
    return (*catalog_of(*DERIVED).native_schemas(), *RAW)


# --- goldens --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exported:
    """One provider's tool list over raw schemas (a catalog holds only checked ones)."""

    tools: tuple[Any, ...]
    notes: tuple[ToolNote, ...]


def exporting(export: ToolExport[Any, Any]) -> Callable[[tuple[ToolSchema, ...]], Exported]:
    """A provider's per-tool export run over schemas, as `tools(catalog)` runs it."""

    def run(schemas: tuple[ToolSchema, ...]) -> Exported:
        tools, notes = export_each(schemas, export), notes_of(schemas, export)
        return Exported(tuple(tools), notes)

    return run


export_openai: Final = exporting(openai_tool)
export_anthropic: Final = exporting(anthropic_tool)
export_gemini: Final = exporting(gemini_declaration)

EXPORTS: Final[dict[str, Callable[[tuple[ToolSchema, ...]], Exported]]] = {
    "openai_strict": export_openai,
    "anthropic": export_anthropic,
    "gemini": export_gemini,
}


def as_golden(exported: Exported) -> str:
    """The text a golden file holds: the tools, then the notes."""
    notes = [{"tool": n.tool, "path": n.path, "reason": n.reason} for n in exported.notes]
    document = {"tools": list(exported.tools), "notes": notes}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def test_raw_schemas_are_valid_for_the_full_profile() -> None:
    for schema in (TREE, LOOKUP, LEGACY):
        assert isinstance(check_json_schema(schema, "full"), Success)


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_export_matches_its_golden(name: str) -> None:
    text = as_golden(EXPORTS[name](all_schemas()))
    golden = GOLDENS / f"{name}.json"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def functions(exported: Exported) -> list[dict[str, Any]]:
    """The `function` member of each OpenAI tool."""
    return [cast("dict[str, Any]", tool["function"]) for tool in exported.tools]


# --- the providers' own types, offline ------------------------------------------------------------

OPENAI_TOOL: Final = pydantic.TypeAdapter(ChatCompletionFunctionToolParam)
ANTHROPIC_TOOL: Final = pydantic.TypeAdapter(ToolParam)


def test_openai_tools_pass_the_openai_types() -> None:
    for tool in export_openai(all_schemas()).tools:
        OPENAI_TOOL.validate_python(tool, strict=True)


def test_strict_schemas_are_what_the_openai_sdk_would_send() -> None:
    """The SDK's strict rewrite (the step of `to_strict_json_schema` after pydantic has made the
    schema; the public function takes only pydantic types) leaves each strict schema as it is."""
    strict = [f for f in functions(export_openai(all_schemas())) if f["strict"]]
    assert [f["name"] for f in strict] == ["file_op", "forecast", "ping", "tree", "lookup"]
    for function in strict:
        parameters = copy.deepcopy(function["parameters"])
        rewritten = _ensure_strict_json_schema(parameters, path=(), root=parameters)
        assert rewritten == function["parameters"], function["name"]


def test_anthropic_tools_pass_the_anthropic_types() -> None:
    for tool in export_anthropic(all_schemas()).tools:
        ANTHROPIC_TOOL.validate_python(tool, strict=True)


def test_gemini_declarations_round_trip_through_the_sdk() -> None:
    """google-genai's FunctionDeclaration forbids unknown keys, and gives back every one kept."""
    for tool in export_gemini(all_schemas()).tools:
        declaration = FunctionDeclaration.model_validate(tool)
        assert declaration.model_dump(mode="json", by_alias=True, exclude_unset=True) == tool


# --- the rules ------------------------------------------------------------------------------------


def strict_function(schema: dict[str, Any], **limits: int) -> tuple[dict[str, Any], list[str]]:
    """The OpenAI function fields for one raw schema, and its notes as "path: reason"."""
    frozen = snapshot_json(schema).unwrap()
    parameters, strict, problems = openai_parameters(frozen, OpenAILimits(**limits))
    return {"parameters": parameters, "strict": strict}, [f"{p.path}: {p.reason}" for p in problems]


def test_optional_properties_become_required_and_nullable() -> None:
    function, notes = strict_function(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "integer", "enum": [1, 2]},
                "c": {"const": "x", "description": "pinned"},
                "d": {"type": ["string", "null"]},
                "e": {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
            },
            "required": ["a"],
        }
    )
    assert notes == []
    assert function["strict"] is True
    assert function["parameters"] == {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": ["integer", "null"], "enum": [1, 2, None]},
            "c": {"anyOf": [{"const": "x"}, {"type": "null"}], "description": "pinned"},
            "d": {"type": ["string", "null"]},
            "e": {"anyOf": [{"type": "string"}, {"type": "boolean"}, {"type": "null"}]},
        },
        "required": ["a", "b", "c", "d", "e"],
        "additionalProperties": False,
    }


def test_strict_schemas_accept_the_original_values_with_nulls_for_what_is_left_out() -> None:
    exported = export_openai(catalog_of(DERIVED[0]).native_schemas())
    strict = functions(exported)[0]["parameters"]
    validator = compile_json_schema(strict, "full").unwrap()
    full = {"place": {"city": "Oslo", "country": None}, "days": 2, "unit": "celsius"}
    nulls = {"detail": None, "hours": None, "label": None}
    assert isinstance(validator.validate({**full, **nulls}), Success)
    assert not isinstance(validator.validate(full), Success)  # strict: every key is sent


NOT_STRICT: Final[tuple[tuple[dict[str, Any], str], ...]] = (
    (
        {"type": "array", "items": {"type": "string"}},
        ': the root must be an object schema ("type": "object") for strict mode',
    ),
    (
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/n", "minimum": 3}},
            "$defs": {"n": {"type": "integer"}},
        },
        "/properties/a/$ref: $ref with constraints beside it (minimum)",
    ),
    (
        {"type": "object", "properties": {"a": {"type": "array"}}},
        "/properties/a: an array without items accepts any JSON items",
    ),
    (
        {"type": "object", "properties": {"a": True}},
        "/properties/a: the schema boolean true has no strict form",
    ),
    (
        {"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}},
        "/properties/a/format: format 'uri' is not one strict mode supports",
    ),
    (
        {"type": "object", "properties": {"a": {"not": {"type": "null"}}}},
        "/properties/a/not: keyword 'not' is not supported by strict mode",
    ),
)


@pytest.mark.parametrize(("schema", "note"), NOT_STRICT)
def test_a_schema_strict_mode_cannot_take_keeps_its_schema_with_a_note(
    schema: dict[str, Any], note: str
) -> None:
    function, notes = strict_function(schema)
    assert function["strict"] is False
    assert function["parameters"] == schema
    assert note in notes


def test_schemas_past_the_limits_are_not_strict() -> None:
    nested: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "string"}}}
    for _ in range(3):
        nested = {"type": "object", "properties": {"n": nested, "y": {"type": "string"}}}
    assert strict_function(nested)[0]["strict"] is True
    _, notes = strict_function(nested, nesting=3, properties=6)
    assert notes == [
        ": 7 object properties (strict mode allows 6)",
        "/properties/n/properties/n/properties/n: objects nested 4 deep (at most 3)",
    ]
    _, notes = strict_function(LOOKUP, enum_values=2)
    assert notes == [": 3 enum values (strict mode allows 2)"]


def test_only_a_schema_near_the_strict_limits_is_counted_against_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rewrite's own tallies bound the exact count: a schema they show far inside the limits
    is not walked a second time (the count is a walk of the whole strict schema)."""
    counted: list[object] = []
    check = strict_rewrite._check_limits

    def counting(*args: Any) -> None:
        counted.append(args[0])
        check(*args)

    monkeypatch.setattr(strict_rewrite, "_check_limits", counting)
    exported = export_openai(all_schemas())
    assert sum(f["strict"] for f in functions(exported)) == 5
    assert counted == []
    _, notes = strict_function(LOOKUP, enum_values=2)  # 3 values (a null joined them): counted
    assert notes == [": 3 enum values (strict mode allows 2)"]
    assert len(counted) == 1


def test_a_problem_met_again_is_made_once() -> None:
    """The same place and reason in tool after tool (Gemini drops every derived schema's
    `additionalProperties`) give the very same problem, not a new one per tool."""
    first, second = (
        snapshot_json(
            {
                "type": "object",
                "properties": {name: {"type": "string"}},
                "additionalProperties": False,
            }
        ).unwrap()
        for name in ("a", "b")
    )
    (_, [dropped]), (_, [again]) = gemini_parameters(first), gemini_parameters(second)
    assert dropped.path == "/additionalProperties"
    assert again is dropped


def test_the_problems_kept_for_reuse_are_bounded() -> None:
    for index in range(_MADE_MOST + 10):
        problem_at(("properties", index), "a reason")
        assert len(_made) <= _MADE_MOST
    assert problem_at(("properties", 1), "x" * _MADE_LONGEST) is not problem_at(
        ("properties", 1), "x" * _MADE_LONGEST
    )


PUBLIC_EXPORTS: Final[tuple[Callable[[Any], Any], ...]] = (
    openai_chat.tools,
    openai_responses.tools,
    anthropic_messages.tools,
    lambda catalog: gemini.tools(catalog)["function_declarations"],
)


def test_a_catalog_exports_its_native_tools_and_run_code_only() -> None:
    registry = Registry()
    registry = registry.add_scope("agent")
    registry, _ = registry.present_as("agent", "code")
    registry, _ = registry.register(_tool("direct", "Outside Code Mode.", NoArgs, codemode=False))
    registry, _ = registry.register(_tool("coded", "Inside Code Mode.", NoArgs))
    for export in PUBLIC_EXPORTS:
        exported = export(registry.catalog("agent"))
        assert len(exported) == 2
        text = json.dumps(exported)
        assert '"direct"' in text
        assert '"run_code"' in text  # `coded` is reached through it: its stub is in its text
        assert "async def coded(" in text
        assert export(registry.catalog()) != exported  # native: both tools, no run_code


def test_a_catalog_snapshot_exports_once_and_shares_the_list() -> None:
    registry, _ = Registry().register(DERIVED[0])
    for export in PUBLIC_EXPORTS:
        first = export(registry.catalog())
        json.dumps(first)
        assert export(registry.catalog()) is first  # kept with the snapshot, not made again
        changed, _ = registry.register(DERIVED[1])
        assert export(changed.catalog()) is not first  # a new snapshot: a new list


Wire = tuple[
    Callable[[Catalog], Sequence[Any]],
    Callable[[Catalog], tuple[ToolNote, ...]],
    ToolExport[Any, Any],
]
"""A wire format's `tools`, its `notes` and its per-tool export."""

WIRE_FORMATS: Final[dict[str, Wire]] = {
    "openai_chat": (openai_chat.tools, openai_chat.notes, openai_chat._chat._EXPORT),
    "openai_responses": (
        openai_responses.tools,
        openai_responses.notes,
        openai_responses._responses._EXPORT,
    ),
    "anthropic_messages": (
        anthropic_messages.tools,
        anthropic_messages.notes,
        anthropic_messages._messages._EXPORT,
    ),
    "gemini": (
        lambda catalog: gemini.tools(catalog)["function_declarations"] or [],
        gemini.notes,
        gemini._generate._EXPORT,
    ),
}


class Counted:
    """Counts the calls of one wire format's `convert` and `assemble`."""

    def __init__(self, export: ToolExport[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
        self.converted = self.assembled = 0
        convert, assemble = export.convert, export.assemble

        def counted_convert(parameters: Any) -> Any:
            self.converted += 1
            return convert(parameters)

        def counted_assemble(schema: ToolSchema, converted: Any) -> Any:
            self.assembled += 1
            return assemble(schema, converted)

        monkeypatch.setattr(export, "convert", counted_convert)
        monkeypatch.setattr(export, "assemble", counted_assemble)


class SharedArgs(TypedDict):
    """Arguments many tools share (one parameter schema object)."""

    path: str
    limit: NotRequired[int]


@pytest.mark.parametrize("wire", sorted(WIRE_FORMATS))
def test_a_snapshot_one_registration_apart_exports_only_the_new_tool(
    wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools, notes, export = WIRE_FORMATS[wire]
    location = Location()
    location.register_all(_tool(f"t{i:02d}", "A tool.", SharedArgs) for i in range(50))
    counted = Counted(export, monkeypatch)
    before, noted = tools(location.catalog()), notes(location.catalog())
    assert (counted.converted, counted.assembled) == (1, 50)  # one schema object, 50 tools
    dispose = location.register(_tool("m_new", "Another.", ForecastArgs))
    after = tools(location.catalog())
    assert (counted.converted, counted.assembled) == (2, 51)
    assert len(after) == 51
    kept = {id(tool) for tool in after}
    assert all(id(tool) in kept for tool in before)  # the very same exports, not made again
    dispose()
    assert tools(location.catalog()) == before
    assert notes(location.catalog()) == noted
    assert (counted.converted, counted.assembled) == (2, 51)


class Converted:
    """What the spy's `convert` gives: an object whose lifetime the test can watch."""


def test_a_list_holds_only_the_conversions_of_parameter_schemas_tools_share() -> None:
    shared = snapshot_json({"type": "object", "properties": {"a": {"type": "string"}}}).unwrap()
    schemas = tuple(
        ToolSchema(f"t{i}", "", shared if i % 2 else {"type": "object", "properties": {}})
        for i in range(6)
    )
    made: list[weakref.ref[Converted]] = []

    def convert(parameters: Any) -> tuple[Converted, list[Any]]:
        alive = sum(ref() is not None for ref in made)
        assert alive <= 1  # the shared schema's, held; none of a schema one tool has
        converted = Converted()
        made.append(weakref.ref(converted))
        return converted, []

    tools = export_each(schemas, ToolExport(convert, lambda schema, _: schema.name))
    assert tools == [f"t{i}" for i in range(6)]
    assert len(made) == 4  # three unshared schemas, and the shared one once


@pytest.mark.parametrize("wire", sorted(WIRE_FORMATS))
def test_notes_are_made_only_when_asked_for_and_once_per_snapshot(
    wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list sent without its notes read makes none, and asking twice makes them once."""
    tools, notes, export = WIRE_FORMATS[wire]
    made: list[ToolNote] = []

    def counted(tool: str, path: str, reason: str) -> ToolNote:
        made.append(ToolNote(tool, path, reason))
        return made[-1]

    monkeypatch.setattr(_tools, "ToolNote", counted)
    location = Location()
    location.register_all(_tool(f"t{i:02d}", "A tool.", AnnotateArgs) for i in range(20))
    counting = Counted(export, monkeypatch)
    assert len(tools(location.catalog())) == 20
    assert made == []
    noted = notes(location.catalog())
    assert list(noted) == made
    assert notes(location.catalog()) is noted
    assert (counting.converted, counting.assembled) == (1, 20)  # notes convert nothing again
    # an open map: not strict, and dropped by Gemini; Anthropic drops only a `$schema`
    assert len(made) == (0 if wire == "anthropic_messages" else 2 * 20)


@pytest.mark.parametrize("wire", sorted(WIRE_FORMATS))
def test_a_kept_export_goes_with_its_tool(wire: str) -> None:
    tools, _, export = WIRE_FORMATS[wire]
    location = Location()
    dispose = location.register(_tool("short_lived", "Gone soon.", SharedArgs))
    tools(location.catalog())
    kept = len(export)
    dispose()
    tools(location.catalog())
    gc.collect()
    assert len(export) == kept - 1


def test_the_documented_cache_control_pattern_leaves_the_kept_list_unchanged() -> None:
    catalog = catalog_of(*DERIVED)
    kept = anthropic_messages.tools(catalog)
    before = copy.deepcopy(kept)
    tools = anthropic_messages.tools(catalog)
    cached = [*tools[:-1], {**tools[-1], "cache_control": {"type": "ephemeral"}}]
    pydantic.TypeAdapter(list[ToolParam]).validate_python(cached)
    assert cached[-1]["cache_control"] == {"type": "ephemeral"}
    assert anthropic_messages.tools(catalog) is kept
    assert kept == before
    assert all("cache_control" not in tool for tool in anthropic_messages.tools(catalog))


def test_exports_are_made_from_the_catalogs_schemas_without_changing_them() -> None:
    catalog = catalog_of(*DERIVED)
    before = [thaw_json(s.parameters) for s in catalog.native_schemas()]
    for export in PUBLIC_EXPORTS:
        export(catalog)
    assert [thaw_json(s.parameters) for s in catalog.native_schemas()] == before


def test_plain_dict_schemas_are_accepted_and_non_json_refused() -> None:
    plain = ToolSchema("plain", "", {"type": "object", "properties": {}})
    assert export_anthropic((plain,)).tools[0]["input_schema"] == {
        "type": "object",
        "properties": {},
    }
    broken = ToolSchema("broken", "", {"type": "object", "default": float("nan")})
    with pytest.raises(ValueError, match="tool 'broken': parameters are not JSON"):
        export_openai((broken,))


def test_gemini_omits_the_parameters_of_a_tool_without_any() -> None:
    (declaration,) = export_gemini(catalog_of(DERIVED[3]).native_schemas()).tools
    assert declaration == {"name": "ping", "description": "Check the service is up."}


def test_a_note_reads_as_tool_path_and_reason() -> None:
    note = ToolNote("t", "", "why")
    assert str(note) == "t: (root): why"
    assert str(ToolNote("t", "/a", "why")) == "t: /a: why"


def test_gemini_rewrites_nulls_unions_and_pinned_values() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "integer", "null"]},
            "b": {"const": "only"},
            "c": {"enum": ["x", None]},
            "d": {"enum": [1, "one"]},
            "e": {"oneOf": [{"type": "boolean"}, {"type": "null"}], "description": "flag"},
        },
    }
    exported = export_gemini((ToolSchema("t", "", snapshot_json(schema).unwrap()),))
    assert exported.tools[0]["parameters"] == {
        "type": "OBJECT",
        "properties": {
            "a": {"nullable": True, "anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]},
            "b": {"type": "STRING", "enum": ["only"]},
            "c": {"type": "STRING", "nullable": True, "enum": ["x"]},
            "d": {},
            "e": {"type": "BOOLEAN", "description": "flag", "nullable": True},
        },
    }
    assert [f"{n.path}: {n.reason}" for n in exported.notes] == [
        "/properties/d/enum: enum not all strings (Gemini pins only strings): dropped"
    ]


class Depth(TypedDict):
    depth: NotRequired[int]


class Optionals(TypedDict):
    path: str
    limit: NotRequired[int]
    note: NotRequired[str | None]
    inner: NotRequired[Depth]
    many: NotRequired[list[Depth]]


def test_undo_strict_nulls_drops_the_nulls_strict_mode_sends_for_omitted_properties() -> None:
    schema = schema_of(Optionals).json_schema
    sent: JsonValue = {
        "path": "a",
        "limit": None,
        "note": None,
        "inner": {"depth": None},
        "many": [{"depth": None}, {"depth": 2}],
    }
    assert undo_strict_nulls(schema, sent) == {
        "path": "a",
        "note": None,  # the property accepts null: strict mode cannot tell, so it stays
        "inner": {},
        "many": [{}, {"depth": 2}],
    }
    assert undo_strict_nulls(schema, {"path": None}) == {"path": None}  # required: left to fail


def test_undo_strict_nulls_picks_a_union_branch_by_its_tag() -> None:
    branch_a = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "kind": {"const": ""}},
        "required": ["kind"],
    }
    branch_b = {
        "type": "object",
        "properties": {"b": {"type": "string"}, "kind": {"enum": ["0", 0]}},
        "required": ["kind"],
    }
    schema = snapshot_json(
        {"type": "object", "properties": {"x": {"oneOf": [branch_a, branch_b, {"type": "string"}]}}}
    ).unwrap()
    assert undo_strict_nulls(schema, {"x": {"a": None, "kind": ""}}) == {"x": {"kind": ""}}
    assert undo_strict_nulls(schema, {"x": {"b": None, "kind": 0}}) == {"x": {"kind": 0}}
    untagged = {"x": {"b": None, "kind": False}}  # no branch's tag: left for validation to refuse
    assert undo_strict_nulls(schema, untagged) == untagged
