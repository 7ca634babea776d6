"""`ToolCall.from_json`: a call from the model's JSON text, parsed once straight into frozen JSON;
the strict-null undo is skipped for tools whose schema cannot get such nulls."""

from __future__ import annotations

import json
from typing import Any, NotRequired, TypedDict

import jiter
import pytest
from hypothesis import given

from tests.properties.test_json_properties import json_values, same_json
from toolfx.core import (
    CancelSignal,
    ErrorCode,
    Location,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    execute,
)
from toolfx.core.json import FrozenDict, JsonErrorKind, parse_json
from toolfx.core.pipeline import ToolCall
from toolfx.core.providers import model_call
from toolfx.core.tools import Output, ToolRunContext, define_tool
from toolfx.interpreters import run_sync

SIGNAL = CancelSignal()


class Args(TypedDict):
    a: int
    b: int


class Options(TypedDict):
    a: int
    note: NotRequired[str]


def add(args: Args, ctx: ToolRunContext) -> int:
    return args["a"] + args["b"]


def noted(args: Options, ctx: ToolRunContext) -> str:
    return args.get("note", "none")


def _catalog() -> Any:
    location = Location()
    location.register(
        define_tool(name="add", description="Add", parameters=Args, output=Output(int), execute=add)
    )
    location.register(
        define_tool(
            name="noted", description="Note", parameters=Options, output=Output(str), execute=noted
        )
    )
    return location.catalog()


def _value(result: ToolExecutionResult) -> object:
    assert isinstance(result, ToolExecutionSuccess), result
    return result.value


@given(json_values)
def test_from_json_is_the_call_of_the_parsed_text(value: object) -> None:
    text = json.dumps(value)
    built = ToolCall.from_json("c", "t", text, SIGNAL)
    assert built == ToolCall("c", "t", json.loads(text), SIGNAL)
    assert built.arguments_error is None
    assert same_json(built.arguments, parse_json(text).unwrap())


def test_from_json_takes_bytes_and_runs_the_call() -> None:
    call = ToolCall.from_json("c", "add", b'{"a": 1, "b": 2}', SIGNAL)
    assert type(call.arguments) is FrozenDict
    assert _value(run_sync(execute(_catalog(), call))) == 3


@pytest.mark.parametrize(
    ("text", "kind", "where"),
    [
        ('{"a": 1, "a": 2}', JsonErrorKind.DUPLICATE_KEY, "at the root"),
        ('{"a": {"b": [1, 1e400]}}', JsonErrorKind.NOT_FINITE, "at /a/b/1"),
        ('{"a": ["\\ud800"]}', JsonErrorKind.INVALID_STRING, "at /a/0"),
        ('{"a": ' + "9" * 4301 + "}", JsonErrorKind.TOO_LARGE, "at the root"),
        ('{"a": ' + "[" * 200 + "]" * 200 + "}", JsonErrorKind.TOO_DEEP, "at /a/0/0"),
        ('{"a": 1', JsonErrorKind.SYNTAX, "(line 1, column 8)"),
        (b'{"a": "\xff"}', JsonErrorKind.INVALID_STRING, "(byte 7)"),
    ],
)
def test_text_that_is_not_lossless_json_fails_invalid_args_naming_what_and_where(
    text: str | bytes, kind: JsonErrorKind, where: str
) -> None:
    call = ToolCall.from_json("c", "add", text, SIGNAL)
    assert call.arguments == text  # kept as it came
    assert call.arguments_error is not None
    assert call.arguments_error.kind is kind
    assert where in str(call.arguments_error)
    result = run_sync(execute(_catalog(), call))
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_ARGS
    assert str(call.arguments_error) in result.error.message


def test_from_json_writes_hostile_ids_printable_as_the_constructor_does() -> None:
    built = ToolCall.from_json("c\ud800", "add\ud800", "{}", SIGNAL, "r\ud800", None, "p\ud800")
    assert built == ToolCall("c\ud800", "add\ud800", {}, SIGNAL, "r\ud800", None, "p\ud800")


def test_jiter_refuses_integers_past_the_bound_the_fast_copy_relies_on() -> None:
    jiter.from_json(b"9" * 4300)  # 4,300 digits: within toolfx's bound
    with pytest.raises(ValueError, match="out of range"):
        jiter.from_json(b"1" + b"0" * 4300)
    with pytest.raises(ValueError, match="out of range"):
        jiter.from_json(b"-1" + b"0" * 4300)


def test_from_json_snapshots_nothing_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolfx.core.pipeline._call as call_module

    walks: list[object] = []
    monkeypatch.setattr(call_module, "snapshot_or_error", lambda v, *a: walks.append(v))
    ToolCall.from_json("c", "add", '{"a": 1, "b": 2}', SIGNAL)
    assert walks == []


def test_text_for_a_tool_without_optional_properties_is_never_walked_for_nulls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolfx.core.providers._calls as calls_module
    import toolfx.core.providers._nulls as nulls_module

    undone: list[object] = []
    decided: list[object] = []
    undo = nulls_module.undo_strict_nulls
    decide = nulls_module.has_optional_properties

    def counted_undo(schema: Any, value: Any) -> Any:
        undone.append(value)
        return undo(schema, value)

    def counted_decide(schema: Any) -> bool:
        decided.append(schema)
        return decide(schema)

    monkeypatch.setattr(calls_module, "undo_strict_nulls", counted_undo)
    monkeypatch.setattr(nulls_module, "has_optional_properties", counted_decide)
    catalog = _catalog()
    for number in range(3):
        call = model_call(f"c{number}", "add", '{"a": 1, "b": 2}', catalog, SIGNAL)
        assert _value(run_sync(execute(catalog, call))) == 3
    assert undone == []  # no property of `add` is optional: strict mode adds no nulls
    assert len(decided) == 1  # decided once for the tool, not per call
    call = model_call("c9", "noted", '{"a": 1, "note": null}', catalog, SIGNAL)
    assert dict(call.arguments) == {"a": 1}  # type: ignore[call-overload]
    assert len(undone) == 1
    assert len(decided) == 2


@pytest.mark.parametrize(
    ("schema", "optional"),
    [
        ({"type": "object", "properties": {"a": {}}, "required": ["a"]}, False),
        ({"type": "object", "properties": {"a": {}}}, True),
        ({"$defs": {"X": {"properties": {"a": {}}, "required": []}}, "$ref": "#/$defs/X"}, True),
        ({"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"items": {}}]}, False),
        ({"items": [{"properties": {"b": {}}, "required": "b"}]}, True),
        (True, False),
    ],
)
def test_optional_properties_are_found_anywhere_in_the_schema(
    schema: object, optional: bool
) -> None:
    from toolfx.core.providers._nulls import has_optional_properties

    assert has_optional_properties(schema) is optional  # type: ignore[arg-type]


def test_arguments_that_are_not_text_are_a_type_error_naming_the_type() -> None:
    with pytest.raises(TypeError, match="str or bytes, not dict"):
        ToolCall.from_json("c", "add", {"a": 1}, SIGNAL)  # type: ignore[arg-type]
