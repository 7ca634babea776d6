"""materialize.py: every field checked and frozen; what is already frozen kept as it is."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import typing
from typing import Any

import pytest

from toolfx.core.json import FrozenDict, FrozenJson, parse_json, thaw_json
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.records import SessionRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    ContentBlock,
    ContextMessage,
    ErrorCode,
    TextBlock,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    ToolFailure,
    materialized,
    text,
)
from toolfx.core.tools._materialize import NotMaterializable, _dataclass_check
from toolfx.interpreters.sync import run_sync

BLOCK_KINDS = typing.get_args(ContentBlock)


def _sample(hint: object) -> object:
    """A valid value for a declared field type."""
    if hint is str:
        return "x"
    if hint is int:
        return 1
    if hint is FrozenJson or type(None) in typing.get_args(hint):
        return None
    raise AssertionError(f"no sample for {hint!r}")


def _block(kind: type, **fields: object) -> Any:
    hints = typing.get_type_hints(kind)
    values = {f.name: _sample(hints[f.name]) for f in dataclasses.fields(kind)}
    return kind(**(values | fields))


def _string_fields() -> list[tuple[type, str]]:
    return [
        (kind, f.name)
        for kind in BLOCK_KINDS
        for f in dataclasses.fields(kind)
        if typing.get_type_hints(kind)[f.name] is str
    ]


def _message(result: object) -> str:
    assert isinstance(result, ToolExecutionFailure), result
    assert result.error.code is ErrorCode.INVALID_TOOL_OUTPUT
    return result.error.message


@pytest.mark.parametrize(("kind", "name"), _string_fields())
def test_every_string_field_of_every_block_kind_is_checked(kind: type, name: str) -> None:
    good = _block(kind)
    assert materialized(ToolExecutionSuccess(None, (good,)), "t").content == (good,)
    bad = _block(kind, **{name: "\udc00"})
    result = materialized(ToolExecutionSuccess(None, (good, bad)), "t")
    assert f"content[1].{name}: holds a lone surrogate" in _message(result)
    wrong = _block(kind, **{name: 5})
    assert f"content[0].{name}: a int, not a str" in _message(
        materialized(ToolExecutionSuccess(None, (wrong,)), "t")
    )


def test_a_sound_frozen_result_is_the_same_object() -> None:
    value = parse_json('{"a": [1, "é"]}').unwrap()
    meta = parse_json('{"m": {}}').unwrap()
    context = ContextMessage(text("c"), "s", meta)
    result = ToolExecutionSuccess(value, (TextBlock("ascii"), TextBlock("é")), meta, (context,))
    assert materialized(result, "t") is result
    failure = ToolExecutionFailure(ToolFailure.of(ErrorCode.TOOL_ERROR, "m", value), text("m"))
    assert materialized(failure, "t") is failure


def test_lists_and_str_subclasses_become_tuples_and_plain_text() -> None:
    class Loud(str):
        __slots__ = ()

        def __str__(self) -> str:
            return "overridden"

    result = materialized(
        ToolExecutionSuccess({"k": [1]}, [TextBlock(Loud("quiet"))]),  # type: ignore[arg-type]
        "t",
    )
    assert isinstance(result, ToolExecutionSuccess)
    assert type(result.value) is FrozenDict
    assert type(result.content) is tuple
    (block,) = result.content
    assert isinstance(block, TextBlock)
    assert type(block.text) is str
    assert block.text == "quiet"


@pytest.mark.parametrize(
    ("result", "named"),
    [
        (object(), "the result: a object, not a ToolExecutionResult"),
        (ToolExecutionSuccess(None, text("x"), None, (), 1), "concludes_turn: a int"),  # type: ignore[arg-type]
        (ToolExecutionSuccess(None, 5), "content: a int, not a tuple"),  # type: ignore[arg-type]
        (
            ToolExecutionFailure(ToolFailure("m", "code"), text("m")),  # type: ignore[arg-type]
            "error.info: a str, not a ToolErrorInfo",
        ),
        (
            ToolExecutionFailure(ToolFailure.of("X", "m"), text("m")),  # type: ignore[arg-type]
            "error.info.code: 'X' is not an ErrorCode",
        ),
        (
            ToolExecutionSuccess(None, (), None, (ContextMessage((), 3),)),  # type: ignore[arg-type]
            "additional_contexts[0].source: a int, not a str",
        ),
        (
            ToolExecutionSuccess(None, (), {(1,): 2}),  # type: ignore[dict-item]
            "meta: object key (1,) is of type tuple",
        ),
    ],
)
def test_what_is_wrong_is_named(result: object, named: str) -> None:
    assert named in _message(materialized(result, "t"))


def test_a_failure_keeps_the_contexts_that_are_sound() -> None:
    context = ContextMessage(text("kept"), "s")
    result = materialized(ToolExecutionSuccess(float("nan"), (), None, (context,)), "t")
    assert "value: nan is not a finite number" in _message(result)
    assert result.additional_contexts == (context,)


def test_a_tool_calls_parameters_are_its_init_fields_and_it_snapshots_them() -> None:
    parameters = [(p.name, p.default) for p in inspect.signature(ToolCall).parameters.values()]
    empty = inspect.Parameter.empty
    fields = [
        (f.name, empty if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(ToolCall)
        if f.init
    ]
    assert parameters == fields
    arguments: dict[str, Any] = {"a": [1]}
    call = ToolCall("c", "t", arguments, CancelSignal())
    arguments["a"].append(2)
    assert call.arguments == {"a": [1]}
    assert type(call.arguments) is FrozenDict
    assert call.arguments_error is None
    refused = ToolCall("c", "t", {"a": float("inf")}, CancelSignal())
    assert refused.arguments_error is not None
    assert refused.arguments_error.path == "/a"


@dataclasses.dataclass(frozen=True, slots=True)
class _Link:
    uri: str
    size: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class _Card:
    """A block kind as a future one may look: optional fields and a nested dataclass."""

    title: str | None
    link: _Link
    score: float = 0.0
    meta: FrozenJson = None


def test_block_fields_are_checked_by_their_declared_types() -> None:
    check = _dataclass_check(_Card)
    sound = _Card(None, _Link("u", 3))
    assert check(sound, "content[0]") is sound
    shared: dict[str, Any] = {"k": []}
    copied = check(_Card("t", _Link("u"), 1.5, shared), "content[0]")
    shared["k"].append(1)
    assert copied.meta == {"k": []}
    for bad, named in (
        (_Card(3, _Link("u")), "content[0].title: neither"),  # type: ignore[arg-type]
        (_Card(None, _Link("u", 10**5000)), "content[0].link.size: neither"),
        (_Card(None, _Link("\ud800")), "content[0].link.uri: holds a lone surrogate"),
        (_Card(None, "u"), "content[0].link: a str, not a _Link"),  # type: ignore[arg-type]
        (_Card(None, _Link("u"), float("inf")), "content[0].score: inf is not a finite number"),
        (_Card(None, _Link("u"), 1), "content[0].score: a int, not a float"),
    ):
        with pytest.raises(NotMaterializable, match=re.escape(named)):
            check(bad, "content[0]")


def test_lone_surrogates_in_a_calls_ids_and_name_still_give_durable_records() -> None:
    sink: list[SessionRecord] = []
    call = ToolCall("id\ud800", "to\udfffol", {}, CancelSignal(), "root\ud800", None, "up\ud800")
    result = run_sync(execute(Location().catalog(), call, sink.append))
    assert result.is_error
    texts = [json.dumps(thaw_json(record.to_json()), ensure_ascii=False) for record in sink]
    assert [text.encode("utf-8") for text in texts]  # every record encodes as UTF-8
    assert call.call_id == "id\\ud800"
    assert (call.name, call.root_call_id, call.parent_call_id) == (
        "to\\udfff" + "ol",
        "root\\ud800",
        "up\\ud800",
    )


def test_a_text_block_has_no_field_the_fast_check_would_miss() -> None:
    # `materialized` passes a text block whose text is ASCII and whose annotations are None
    # without a call: a new field of TextBlock must join that check (tools/_materialize.py).
    assert [f.name for f in dataclasses.fields(TextBlock)] == ["text", "annotations"]


def test_a_text_block_with_annotations_that_are_not_json_is_caught() -> None:
    block = TextBlock("ok", {"a": {1, 2}})  # type: ignore[dict-item]
    result = materialized(ToolExecutionSuccess(1, (block,)), "t")
    assert isinstance(result, ToolExecutionFailure)
    assert "content[0].annotations/a" in result.error.message
