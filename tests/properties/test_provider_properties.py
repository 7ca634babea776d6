"""Properties of the provider exports over random derived tool arguments (TypedDicts and frozen
dataclasses of random derivable types, from test_schema_properties).

OpenAI: a derived schema is made strict unless it holds a value of any JSON or an open map (and
the notes say which); a strict schema closes every object with every property required, and
accepts every value of the type once the properties it leaves out are sent as null, and
`undo_strict_nulls` turns such a call into one the tool's own schema accepts (a null for an
optional property that accepts null stays: strict mode cannot tell the two apart). Gemini: the
declaration always passes google-genai's own types, which refuse unknown keys, and gives back
every key it was given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, cast

from google.genai.types import FunctionDeclaration
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from tests.properties.test_schema_properties import (
    derivable_types,
    frozen_dataclasses,
    typed_dicts,
    values_for,
)
from toolfx.core.json import thaw_json
from toolfx.core.jsonschema import compile_json_schema
from toolfx.core.providers import (
    anthropic_messages,
    gemini,
    openai_chat,
    openai_responses,
    undo_strict_nulls,
)
from toolfx.core.providers._tools import ToolExport, ToolNote, export_each, notes_of
from toolfx.core.providers.gemini._generate import _EXPORT as gemini_declaration
from toolfx.core.providers.openai_chat._chat import _EXPORT as openai_tool
from toolfx.core.registry import Catalog, Disposer, Location, ToolSchema
from toolfx.core.schema import schema_of
from toolfx.core.tools import Output, define_tool

argument_types: Final = typed_dicts(derivable_types(2)) | frozen_dataclasses(derivable_types(2))

NOT_STRICT_WHEN_DERIVED: Final = frozenset(
    {
        "an open object: it declares no properties, so any key goes",
        "no type, enum, const, anyOf, oneOf or $ref: any JSON value goes",
    }
)
"""Why a derived schema may not be strict: a dict[str, JsonValue] map, or a JsonValue."""


def with_nulls(value: Any, schema: Any) -> Any:
    """The value with every property its (original) schema leaves out sent as null."""
    if "oneOf" in schema:
        branches = [b for b in schema["oneOf"] if _valid(b, value)]
        assert len(branches) == 1, (schema, value)
        return with_nulls(value, branches[0])
    if isinstance(value, dict) and "properties" in schema:
        return {
            key: with_nulls(value[key], sub) if key in value else None
            for key, sub in schema["properties"].items()
        }
    if isinstance(value, list):
        return [with_nulls(item, schema["items"]) for item in value]
    return value


def _valid(schema: Any, value: Any) -> bool:
    return isinstance(compile_json_schema(schema, "portable").unwrap().validate(value), Success)


def assert_closed(node: Any) -> None:
    """Every object schema in a strict schema is closed and requires all its properties."""
    if isinstance(node, list):
        for item in node:
            assert_closed(item)
    if not isinstance(node, dict):
        return
    declared = node.get("type")
    if declared == "object" or (isinstance(declared, list) and "object" in declared):
        assert node["additionalProperties"] is False, node
        assert node["required"] == list(node.get("properties", {})), node
    for item in node.values():
        assert_closed(item)


@given(st.data())
def test_strict_schemas_accept_every_value_with_nulls_for_what_it_leaves_out(
    data: st.DataObject,
) -> None:
    tp = data.draw(argument_types)
    value = data.draw(values_for(tp))
    schema = schema_of(tp)
    schemas = [ToolSchema("t", "", schema.json_schema)]
    tools, notes = export_each(schemas, openai_tool), notes_of(schemas, openai_tool)
    function = cast("dict[str, Any]", tools[0]["function"])
    if not function["strict"]:
        assert notes
        assert {note.reason for note in notes} <= NOT_STRICT_WHEN_DERIVED
        return
    assert notes == ()
    strict = function["parameters"]
    assert_closed(strict)
    original = thaw_json(schema.encode(value).unwrap())
    sent = with_nulls(original, thaw_json(schema.json_schema))
    checked = compile_json_schema(strict, "full").unwrap().validate(sent)
    assert isinstance(checked, Success), (strict, sent, checked)
    received = undo_strict_nulls(schema.json_schema, sent)  # what the tool's own schema sees
    assert _valid(schema.json_schema, received), (schema.json_schema, sent, received)


@given(argument_types)
def test_gemini_declarations_pass_the_sdk_types(tp: Any) -> None:
    (tool,) = export_each(
        [ToolSchema("t", "a tool", schema_of(tp).json_schema)], gemini_declaration
    )
    declaration = FunctionDeclaration.model_validate(tool)
    assert declaration.model_dump(mode="json", by_alias=True, exclude_unset=True) == tool


WIRE_EXPORTS: Final[
    tuple[
        tuple[
            Callable[[Catalog], Sequence[Any]],
            Callable[[Catalog], tuple[ToolNote, ...]],
            ToolExport[Any, Any],
        ],
        ...,
    ]
] = (
    (openai_chat.tools, openai_chat.notes, openai_tool),
    (openai_responses.tools, openai_responses.notes, openai_responses._responses._EXPORT),
    (anthropic_messages.tools, anthropic_messages.notes, anthropic_messages._messages._EXPORT),
    (lambda c: gemini.tools(c)["function_declarations"] or [], gemini.notes, gemini_declaration),
)


def _pool_tool(index: int, tp: Any) -> Any:
    return define_tool(
        name=f"tool_{index}",
        description=f"Tool {index}.",
        parameters=tp,
        output=Output(str),
        execute=lambda args, ctx: "",
    )


@settings(max_examples=max(20, settings().max_examples // 4))
@given(
    st.lists(argument_types, min_size=1, max_size=4),
    st.lists(st.tuples(st.booleans(), st.integers(0, 5)), max_size=12),
)
def test_lists_made_from_kept_exports_equal_a_fresh_export(
    types: list[Any], steps: list[tuple[bool, int]]
) -> None:
    location = Location()
    held: dict[int, Disposer] = {}
    for register, index in steps:
        if register and index not in held:
            held[index] = location.register(_pool_tool(index, types[index % len(types)]))
        elif not register and index in held:
            held.pop(index)()
        catalog = location.catalog()
        fresh = [ToolSchema(s.name, s.description, s.parameters) for s in catalog.native_schemas()]
        for tools, notes, export in WIRE_EXPORTS:
            again = ToolExport(export.convert, export.assemble)
            assert list(tools(catalog)) == export_each(fresh, again)
            assert notes(catalog) == notes_of(fresh, again)
