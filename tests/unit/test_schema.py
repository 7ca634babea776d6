"""Schemas from types: derivation, validation, decoding and definition-time errors."""

from __future__ import annotations

import enum
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NewType, NotRequired, Required, TypedDict

import pytest
from returns.result import Failure, Success

from toolfx.core.json import FrozenDict, FrozenList, JsonValue, parse_json
from toolfx.core.jsonschema import ValidationFailure
from toolfx.core.schema import SchemaDerivationError, _types, schema_of
from toolfx.core.schema._types import type_hints


class ReadArgs(TypedDict):
    """Read a file."""

    path: Annotated[str, "Path relative to the workspace"]
    offset: NotRequired[int]
    limit: NotRequired[int]


class Partial(TypedDict, total=False):
    name: Required[str]
    note: str


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str = "origin"
    tags: tuple[str, ...] = field(default_factory=tuple)


@dataclass
class Mutable:
    x: int


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Circle(TypedDict):
    kind: Literal["circle"]
    radius: float


class Square(TypedDict):
    kind: Literal["square"]
    side: float


class Untagged(TypedDict):
    side: float


class Node(TypedDict):
    children: list[Node]


UserId = NewType("UserId", str)


def failure_of(result: object) -> ValidationFailure:
    assert isinstance(result, Failure)
    failure = result.failure()
    assert isinstance(failure, ValidationFailure)
    return failure


def test_typed_dict_schema_is_closed_with_required_and_descriptions() -> None:
    assert schema_of(ReadArgs).json_schema == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path relative to the workspace"},
            "offset": {"type": "integer"},
            "limit": {"type": "integer"},
        },
        "required": ["path"],
        "additionalProperties": False,
        "description": "Read a file.",
    }


def test_total_false_with_required_marks_only_that_key() -> None:
    schema = schema_of(Partial).json_schema
    assert isinstance(schema, dict)
    assert schema["required"] == ["name"]


def test_typed_dict_decodes_to_the_same_frozen_object() -> None:
    value = parse_json('{"path": "a.py", "offset": 3}').unwrap()
    decoded = schema_of(ReadArgs).validate(value).unwrap()
    assert decoded == {"path": "a.py", "offset": 3}
    assert decoded is value  # nothing to convert: no copy


def test_integral_floats_become_ints_for_int_fields() -> None:
    decoded = schema_of(ReadArgs).validate({"path": "a", "offset": 2.0}).unwrap()
    assert type(decoded["offset"]) is int
    assert isinstance(decoded, FrozenDict)


def test_unknown_and_missing_keys_are_reported_together() -> None:
    failure = failure_of(schema_of(ReadArgs).validate({"offset": "x", "extra": 1}))
    paths = {issue.path for issue in failure.issues}
    assert "/offset" in paths
    assert len(failure.issues) >= 3  # missing path, wrong offset, unexpected extra


def test_frozen_dataclass_round_trip_with_defaults() -> None:
    schema = schema_of(Point)
    assert schema.json_schema == {
        "type": "object",
        "properties": {
            "x": {"type": "number"},
            "y": {"type": "number"},
            "label": {"type": "string", "default": "origin"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["x", "y"],
        "additionalProperties": False,
    }
    point = schema.validate({"x": 1, "y": 2.5, "tags": ["a"]}).unwrap()
    assert point == Point(1.0, 2.5, "origin", ("a",))
    assert type(point.x) is float
    assert schema.encode(point).unwrap() == {"x": 1.0, "y": 2.5, "label": "origin", "tags": ["a"]}


def test_lists_are_delivered_immutable_and_tuples_as_tuples() -> None:
    as_list = schema_of(list[int]).validate([1, 2]).unwrap()
    assert isinstance(as_list, FrozenList)
    with pytest.raises(TypeError):
        as_list.append(3)
    assert schema_of(tuple[int, ...]).validate([1, 2]).unwrap() == (1, 2)
    assert isinstance(schema_of(Sequence[str]).validate(["a"]).unwrap(), FrozenList)


def test_literal_enum_and_const() -> None:
    assert schema_of(Literal["a", "b"]).json_schema == {"type": "string", "enum": ["a", "b"]}
    assert schema_of(Literal["only"]).json_schema == {"type": "string", "const": "only"}
    assert schema_of(Literal[1, "x"]).json_schema == {"enum": [1, "x"]}
    assert schema_of(Color).validate("red").unwrap() is Color.RED
    assert schema_of(Color).encode(Color.BLUE).unwrap() == "blue"
    failure = failure_of(schema_of(Color).validate("green"))
    assert failure.issues[0].path == ""


def test_optional_is_a_oneof_with_null() -> None:
    schema = schema_of(int | None)
    assert schema.json_schema == {"oneOf": [{"type": "integer"}, {"type": "null"}]}
    assert schema.validate(None).unwrap() is None
    assert schema.validate(3.0).unwrap() == 3


def test_literals_in_a_union_merge_into_one_enum() -> None:
    assert schema_of(Literal["a"] | Literal["b"] | None).json_schema == {
        "oneOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]
    }


def test_tagged_unions_decode_to_the_matching_branch() -> None:
    schema = schema_of(Circle | Square)
    assert schema.validate({"kind": "square", "side": 2}).unwrap() == {"kind": "square", "side": 2}
    assert failure_of(schema.validate({"kind": "triangle"})).issues


def test_ambiguous_numeric_union_is_rejected_with_the_reason() -> None:
    with pytest.raises(SchemaDerivationError, match=r"int \| float is ambiguous.*integer"):
        schema_of(int | float)


def test_untagged_object_union_is_rejected() -> None:
    with pytest.raises(SchemaDerivationError, match="tag"):
        schema_of(Circle | Untagged)


def test_json_value_is_unconstrained() -> None:
    schema = schema_of(JsonValue)
    assert schema.json_schema == {}
    assert schema.validate({"any": [1, None]}).unwrap() == {"any": [1, None]}
    assert schema_of(dict[str, JsonValue]).json_schema == {"type": "object"}


def test_new_type_uses_its_supertype() -> None:
    assert schema_of(UserId).json_schema == {"type": "string"}


def test_non_json_input_is_a_validation_failure_with_its_path() -> None:
    failure = failure_of(schema_of(ReadArgs).validate({"path": float("nan")}))
    assert failure.issues[0].path == "/path"


def test_huge_integer_for_a_float_field_is_reported() -> None:
    failure = failure_of(schema_of(Point).validate({"x": 10**400, "y": 0}))
    assert failure.issues[0].path == "/x"


@pytest.mark.parametrize(
    ("type_form", "message"),
    [
        (Mutable, "must be frozen"),
        (Node, "refers to itself"),
        (tuple[int, str], "fixed-length tuple"),
        (dict[str, int], "dict\\[str, JsonValue\\]"),
        (Any, "use JsonValue"),
        (bytes, "bytes is not a supported type"),
        (Annotated[int, 3], "metadata 3"),
        (Literal[1.5], "not a JSON scalar"),
    ],
)
def test_unsupported_types_fail_at_definition_naming_the_type(type_form: Any, message: str) -> None:
    with pytest.raises(SchemaDerivationError, match=message):
        schema_of(type_form)


def test_unsupported_field_names_the_field() -> None:
    class Holder(TypedDict):
        good: int
        bad: set[int]

    with pytest.raises(SchemaDerivationError, match=r"Holder\.bad"):
        schema_of(Holder)


def test_schemas_are_cached_per_type() -> None:
    assert schema_of(ReadArgs) is schema_of(ReadArgs)


def test_validate_accepts_plain_values_and_snapshots_them() -> None:
    result = schema_of(list[str]).validate(["a", "b"])
    assert result == Success(["a", "b"])


@pytest.mark.parametrize(
    ("type_form", "value", "found"),
    [
        (str, "\ud800", "lone surrogate"),
        (int, 10**4300, "more than 4300 digits"),
        (int, True, "boolean true"),
        (bool, 1, "integer 1"),
    ],
    ids=["lone-surrogate", "huge-int", "bool-for-int", "int-for-bool"],
)
def test_bare_scalars_check_what_their_python_type_cannot(
    type_form: Any, value: object, found: str
) -> None:
    schema = schema_of(type_form)
    for outcome in (schema.decode_or_failure(value), schema.round_trip_or_failure(value)):
        assert isinstance(outcome, ValidationFailure)
        assert found in outcome.issues[0].found


def test_bare_scalars_pass_plain_values_through() -> None:
    assert schema_of(str).round_trip_or_failure("é") == ("é", "é")
    assert schema_of(int).decode_or_failure(2.0) == (2.0, 2)
    assert schema_of(bool).round_trip_or_failure(False) == (False, False)


def test_distinct_types_with_equal_schemas_share_one_compiled_schema() -> None:
    make: Any = TypedDict  # class names made at run time
    types = [make(f"Shared{i}", {"shared_path": str, "shared_limit": int}) for i in range(1000)]
    schemas = [schema_of(t) for t in types]
    assert len({id(s.compiled) for s in schemas}) == 1  # one frozen schema, one validator
    assert [s.type_form for s in schemas] == types  # each still its own type's schema
    decoded = schemas[7].validate(parse_json('{"shared_path": "a", "shared_limit": 2.0}').unwrap())
    assert decoded.unwrap() == {"shared_path": "a", "shared_limit": 2}
    assert type(decoded.unwrap()["shared_limit"]) is int


class SameFieldsFirst(TypedDict):
    a: int
    b: float


class SameFieldsSecond(TypedDict):
    a: int
    b: float


class SwappedFields(TypedDict):
    b: int
    a: float


def test_typed_dicts_with_the_same_field_decoders_share_one_decoder() -> None:
    types: tuple[type, ...] = (SameFieldsFirst, SameFieldsSecond, SwappedFields)
    decoders = [schema_of(tp)._decode for tp in types]
    assert decoders[0] is not None
    assert decoders[0] is decoders[1]
    assert decoders[2] is not decoders[0]
    assert schema_of(SameFieldsSecond).validate({"a": 2.0, "b": 1}).unwrap() == {"a": 2, "b": 1}
    assert schema_of(SwappedFields).validate({"a": 2.0, "b": 1}).unwrap() == {"a": 2.0, "b": 1}


def test_annotations_that_evaluate_to_themselves_are_read_without_get_type_hints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made_by_call: Any = TypedDict
    plain = made_by_call("Plain", {"a": int, "b": SameFieldsFirst, "c": Color})
    aliased = made_by_call("Aliased", {"a": list[int], "b": str})
    quoted = made_by_call("Quoted", {"a": "int"})
    expected = {tp: typing.get_type_hints(tp, include_extras=True) for tp in (plain, aliased)}
    calls: list[object] = []
    original = typing.get_type_hints

    def counted(tp: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(tp)
        return original(tp, *args, **kwargs)

    monkeypatch.setattr(typing, "get_type_hints", counted)
    assert type_hints(plain, "Plain") == expected[plain]
    assert calls == []  # classes only: nothing to evaluate
    assert type_hints(aliased, "Aliased") == expected[aliased]
    assert type_hints(quoted, "Quoted") == {"a": int}
    assert calls == [aliased, quoted]


def test_plain_class_fields_are_read_without_looking_for_qualifiers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made_by_call: Any = TypedDict
    plain = made_by_call("PlainFields", {"a": int, "b": str}, total=False)
    qualified = made_by_call("QualifiedFields", {"a": Required[int], "b": NotRequired[str]})
    calls: list[object] = []
    original = typing.get_origin

    def counted(tp: Any) -> Any:
        calls.append(tp)
        return original(tp)

    monkeypatch.setattr(_types, "get_origin", counted)
    fields, required = _types.typed_dict_fields(plain, "PlainFields")
    assert (fields, required) == ({"a": int, "b": str}, frozenset())
    assert calls == []  # only classes: no qualifier to read or strip
    fields, required = _types.typed_dict_fields(qualified, "QualifiedFields")
    assert (fields, required) == ({"a": int, "b": str}, frozenset({"a"}))
    assert calls  # qualifiers are read, and stripped


def test_schemas_sharing_a_compiled_schema_share_its_bound_validator() -> None:
    make: Any = TypedDict
    first, second = (make(f"BoundValidator{i}", {"bound_path": str}) for i in range(2))
    compiled = schema_of(first).compiled
    assert schema_of(second).compiled is compiled
    assert schema_of(first)._is_valid is None  # its validator is compiled on first use
    arguments = parse_json('{"bound_path": "a"}').unwrap()
    for schema in (schema_of(first), schema_of(second)):
        assert schema.decode_or_failure(arguments) == (arguments, arguments)
    assert compiled.is_valid_frozen is compiled.is_valid_frozen  # bound once, not per access
    assert schema_of(first)._is_valid is schema_of(second)._is_valid is compiled.is_valid_frozen
    assert compiled.is_valid_frozen == compiled.validator.is_valid  # its own method: no call


class BaseFields(TypedDict):
    a: int


class InheritedFields(BaseFields, total=False):
    b: str


@pytest.mark.parametrize(
    "tp", [SameFieldsFirst, Partial, ReadArgs, BaseFields, InheritedFields, SwappedFields]
)
def test_typed_dict_fields_agree_with_get_type_hints(tp: type) -> None:
    hints = typing.get_type_hints(tp, include_extras=True)
    fields, required = _types.typed_dict_fields(tp, tp.__name__)
    assert fields == {key: _types.strip_qualifiers(hint) for key, hint in hints.items()}
    assert required == _types._required_keys(tp, hints)
