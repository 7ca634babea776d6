"""What pyright infers for schemas, lossless JSON and validation results (as test_schema_of.yml)."""

from collections.abc import Mapping
from typing import Literal, TypedDict, assert_type

from returns.result import Result

from toolfx.core import (
    FrozenJson,
    JsonError,
    JsonValue,
    ValidationFailure,
    ValueSchema,
    parse_json,
    schema_of,
)


class Args(TypedDict):
    path: str


assert_type(schema_of(int | None), ValueSchema[int | None])
assert_type(schema_of(Literal["a", "b"]), ValueSchema[Literal["a", "b"]])
assert_type(schema_of(list[Args]), ValueSchema[list[Args]])
assert_type(schema_of(Args).validate({"path": "x"}), Result[Args, ValidationFailure])

schema_of(int).encode("three")  # pyright: ignore[reportArgumentType]

assert_type(parse_json("[1]"), Result[FrozenJson, JsonError])
plain: JsonValue = {"a": [1, 2, {"b": None}]}

value = parse_json('{"a": 1}').unwrap()
assert isinstance(value, Mapping)
value["b"] = 2  # pyright: ignore[reportIndexIssue]
