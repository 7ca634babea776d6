"""Tools from raw schemas: `raw_schema`, and swapping a group of registrations in one change."""

from __future__ import annotations

from typing import TypedDict

import pytest
from returns.result import Failure, Success

from toolfx.core.json import FrozenJson, JsonValue
from toolfx.core.registry import Location, RegistryError
from toolfx.core.schema import raw_schema
from toolfx.core.tools import (
    Output,
    ToolDefinition,
    ToolDefinitionError,
    ToolOptions,
    ToolRunContext,
    define_tool,
)

OBJECT = {
    "type": "object",
    "$defs": {"count": {"type": "integer", "minimum": 0}},
    "properties": {"n": {"anyOf": [{"$ref": "#/$defs/count"}, {"type": "null"}]}},
    "required": ["n"],
}


class Args(TypedDict):
    x: int


def typed(name: str) -> ToolDefinition[Args, int]:
    return define_tool(
        name=name,
        description=name,
        parameters=Args,
        output=Output(int),
        execute=lambda args, context: args["x"],
        options=ToolOptions(namespace="srv"),
    )


def echo(args: FrozenJson, context: ToolRunContext) -> JsonValue:
    return str(args)


def raw(name: str) -> ToolDefinition[FrozenJson, JsonValue]:
    return ToolDefinition(
        name=name,
        description=name,
        parameters=raw_schema(OBJECT).unwrap(),
        output=Output(JsonValue),
        execute=echo,
    )


# raw_schema -----------------------------------------------------------------------------------


def test_a_raw_schema_validates_with_the_full_profile_and_decodes_to_frozen_json() -> None:
    schema = raw_schema(OBJECT).unwrap()
    assert schema.json_schema == OBJECT
    assert repr(schema) == "ValueSchema(raw JSON Schema (full profile))"
    assert schema.validate({"n": 3}) == Success({"n": 3})
    refused = schema.validate({"n": -1})
    assert isinstance(refused, Failure)
    assert refused.failure().message("bad") == (
        "bad: 1 problem\n- /n: expected at least one of: 'count' | null (none matched), "
        "found integer -1"
    )


def test_a_raw_schema_names_every_keyword_it_cannot_enforce() -> None:
    outcome = raw_schema({"type": "object", "x-extra": 1, "properties": {"a": {"nullable": True}}})
    assert isinstance(outcome, Failure)
    assert str(outcome.failure()) == (
        "the JSON Schema has 2 problems:\n"
        "- /x-extra: unknown keyword 'x-extra': it would be ignored, so it is not accepted\n"
        "- /properties/a/nullable: keyword 'nullable' is an OpenAPI keyword: "
        'use "type": [..., "null"]'
    )


def test_the_portable_profile_can_be_asked_for() -> None:
    assert isinstance(raw_schema(OBJECT, "portable"), Failure)  # $defs/$ref/anyOf: full only
    assert raw_schema({"type": "string"}, "portable").unwrap().validate("é") == Success("é")


def test_a_boolean_root_is_a_schema_too_but_not_a_tool_parameter() -> None:
    anything = raw_schema(True).unwrap()
    assert anything.validate([1, "a"]) == Success([1, "a"])
    with pytest.raises(ToolDefinitionError, match="must describe a JSON object"):
        ToolDefinition(
            name="t", description="", parameters=anything, output=Output(JsonValue), execute=echo
        )


# register_all ---------------------------------------------------------------------------------


def test_register_all_swaps_a_group_in_one_change() -> None:
    location = Location()
    seen: list[set[str]] = []
    location.on_change(lambda: seen.append({s.name for s in location.schemas()}))
    first = location.register_all([typed("a"), typed("b")])
    assert seen == [{"srv_a", "srv_b"}]
    second = location.register_all([typed("b"), raw("c")], replacing=first)
    assert seen[-1] == {"srv_b", "c"}
    assert len(seen) == 2  # one change: no catalog had a mix of old and new
    first()  # its tools are already gone: nothing happens
    assert len(seen) == 2
    second()
    assert seen[-1] == set()


def test_register_all_is_all_or_nothing() -> None:
    location = Location()
    location.register(typed("b"))
    with pytest.raises(RegistryError, match="'srv_b' is already registered"):
        location.register_all([typed("a"), typed("b")])
    assert [s.name for s in location.schemas()] == ["srv_b"]


def test_register_all_only_replaces_its_own_locations_registrations() -> None:
    elsewhere = Location().register(typed("a"))
    with pytest.raises(ValueError, match="a disposer given by this Location"):
        Location().register_all([], replacing=elsewhere)
