"""Adversarial tests of issue 17's fast paths (an outside review): the model's JSON text parsed by
jiter against the exact stdlib path, the strict-null walk skipped by a per-tool decision, shared
compiled schemas, and batches with no default parallel limit."""

from __future__ import annotations

import os
import sys
import tempfile
import tracemalloc
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.properties.test_json_properties import same_json
from toolfx.core import CancelSignal, Location, ToolExecutionSuccess, execute_batch
from toolfx.core.json import DEFAULT_LIMITS, JsonError, parse_or_error, snapshot_json
from toolfx.core.json._text import _parse_exact
from toolfx.core.pipeline import DEFAULT_PARALLEL_LIMIT, ToolCall
from toolfx.core.providers import model_call
from toolfx.core.providers._nulls import has_optional_properties, undo_strict_nulls
from toolfx.core.schema import raw_schema
from toolfx.core.tools import (
    Output,
    ToolDefinition,
    ToolExecution,
    ToolExecutionResult,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters import run_anyio
from toolfx.leaves import Workspace, workspace_tools

# -- 1. parsing: the fast path (jiter) and the exact path agree on hostile text -----------------

_DEEP = 130  # past the depth limit (128), within jiter's own recursion limit
_HOSTILE_TEXTS: list[str | bytes] = [
    '{"a":1,"\\u0061":2}',
    '{"\\"":1,"\\u0022":2}',
    '{"/":1,"\\/":2}',
    '{"é":1,"\\u00e9":2}',
    '{"e\u0301":1,"\u00e9":2}',  # two spellings that only normalization makes equal: two keys
    '{"a":{"b":1,"b":2}}',
    '[{"a":1},{"a":1,"a":1}]',
    '{"\\ud800":1}',
    '"\\ud800"',
    '"\\udc00\\ud800"',
    '"\\ud83d\\ude00"',
    '"\\u0000"',
    '"a\tb"',
    '"\x7f"',
    "1 2",
    "{} x",
    "{}\x00",
    "\ufeff{}",
    b"\xef\xbb\xbf{}",
    b'"\xc0\xaf"',
    b'"\xed\xa0\x80"',
    b'"\xf4\x90\x80\x80"',
    b'{"a":"\xff"}',
    "\x0c1",
    "\u00a01",
    " \t\r\n1 \t\r\n",
    "NaN",
    "-Infinity",
    "[1e400]",
    "[-1e400]",
    "[1e-400]",
    "[-1e-400]",
    "[-0.0]",
    "[-0]",
    "[5e-324]",
    "[2.4703282292062327e-324]",
    "[1e99999999999999999999]",
    "9" * 4300,
    "-" + "9" * 4300,
    "9" * 4301,
    "-" + "9" * 4301,
    "1" + "0" * 5000 + ".0",
    "1" + "0" * 5000 + ".0e-4990",
    "[" * 128 + "]" * 128,
    "[" * _DEEP + "]" * _DEEP,
    '{"a":' * _DEEP + "1" + "}" * _DEEP,
    "[" * 250 + "]" * 250,
    "[" * 100_000,
    "[1,]",
    '{"a":1,}',
    "",
    "tru",
]


def _exact(text: str | bytes) -> object:
    """What the exact path alone says about `text` (the stdlib decoder, then the exact walk)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            return "not UTF-8"
    return _parse_exact(text, DEFAULT_LIMITS)


def _agree(fast: object, exact: object) -> bool:
    if isinstance(exact, JsonError) or isinstance(fast, JsonError):
        return fast == exact or (exact == "not UTF-8" and isinstance(fast, JsonError))
    return same_json(fast, exact)


@pytest.mark.parametrize("text", _HOSTILE_TEXTS, ids=lambda t: repr(t)[:40])
def test_the_fast_parse_agrees_with_the_exact_parse_on_hostile_text(text: str | bytes) -> None:
    assert _agree(parse_or_error(text), _exact(text))


@pytest.fixture
def lowered_int_digits() -> Iterator[int]:
    """Python's int/str digit limit lowered by the application (640 is the least it allows)."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(1000)
    try:
        yield 1000
    finally:
        sys.set_int_max_str_digits(before)


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_over_a_lowered_digit_limit_is_refused_by_both_paths(
    lowered_int_digits: int, sign: str
) -> None:
    # Before the fix jiter (its own bound: 4,300 digits) kept a 2,000-digit integer that the
    # stdlib path refuses, and the tool ran with a number its result cannot even be rendered with.
    text = f'{{"a": {sign}{"9" * (2 * lowered_int_digits)}, "b": 1}}'
    exact = _exact(text)
    assert isinstance(exact, JsonError)
    assert parse_or_error(text) == exact
    assert parse_or_error(text.encode()) == exact


def test_an_integer_within_a_lowered_digit_limit_still_takes_the_fast_path(
    lowered_int_digits: int,
) -> None:
    text = f'{{"a": {"9" * lowered_int_digits}}}'
    assert same_json(parse_or_error(text), {"a": int("9" * lowered_int_digits)})


# -- 1b. model_call: a tool whose schema "cannot get strict nulls" really cannot ---------------

_leaf_schemas = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"type": ["string", "null"]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"$ref": "#/$defs/d"},
    ]
)


def _object_schema(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from("abc"), unique=True, max_size=3))
    properties = {name: draw(children) for name in names}
    required = draw(st.sampled_from([names, names[:-1], []])) if names else []
    return {"type": "object", "properties": properties, "required": required}


_schemas = st.recursive(
    _leaf_schemas,
    lambda children: st.one_of(
        st.composite(lambda draw: _object_schema(draw, children))(),
        st.builds(lambda items: {"type": "array", "items": items}, children),
        st.builds(lambda a, b: {"anyOf": [a, b]}, children, children),
    ),
    max_leaves=8,
)
_values = st.recursive(
    st.sampled_from([None, 1, "x", True]),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from("abcd"), children, max_size=4),
    ),
    max_leaves=12,
)


@settings(max_examples=400)
@given(_schemas, _schemas, _values)
def test_the_strict_null_walk_changes_nothing_for_a_tool_said_not_to_need_it(
    root: Any, defined: Any, value: Any
) -> None:
    schema = snapshot_json({"type": "object", "properties": {"a": root}, "$defs": {"d": defined}})
    frozen = snapshot_json({"a": value}).unwrap()
    undone = undo_strict_nulls(schema.unwrap(), frozen)
    if not has_optional_properties(schema.unwrap()):
        assert same_json(undone, {"a": value})


# -- 2. shared compiled schemas: equal content, different property order -----------------------


class _First(TypedDict, total=False):
    alpha: int
    beta: str


class _Second(TypedDict, total=False):
    beta: str
    alpha: int


def _body(args: object, ctx: ToolRunContext) -> int:
    return 0


def test_a_tool_keeps_its_own_property_order_when_an_equal_schema_is_held() -> None:
    first = define_tool(
        name="first", description="f", parameters=_First, output=Output(int), execute=_body
    )
    second = define_tool(
        name="second", description="s", parameters=_Second, output=Output(int), execute=_body
    )
    assert list(_properties(first.parameters.json_schema)) == ["alpha", "beta"]
    assert list(_properties(second.parameters.json_schema)) == ["beta", "alpha"]


def _properties(schema: object) -> Mapping[str, object]:
    assert isinstance(schema, Mapping)
    properties = schema["properties"]
    assert isinstance(properties, Mapping)
    return properties


# -- 4. batches with no default limit: what one turn of parallel-safe leaf calls holds ---------

_FILE_BYTES = 128 * 1024
_GREPS = 512
_HELD_PER_CALL = 3 * _FILE_BYTES
"""What one grep of the big file holds while it runs, about (its bytes, text and lines)."""


def test_a_turn_of_greps_holds_a_bounded_number_of_files_at_once() -> None:
    """Bounded by the calls in flight (the default limit), not by how many the model sent: with
    every call of a turn in flight at once, each holding its file while it waits, 512 greps of
    a 128 KiB file held about 200 MB. The bound is on how many bodies run at once, which no
    thread scheduling changes, and on the peak those can hold."""
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "big.txt"), "w", encoding="utf-8") as file:
        file.write(("x" * 127 + "\n") * (_FILE_BYTES // 128))
    location = Location()
    for leaf in workspace_tools(Workspace(folder)):
        location.register(leaf)
    running = [0, 0]  # now, most at once

    async def counted(
        execution: ToolExecution, next_: Callable[[ToolExecution], Awaitable[ToolExecutionResult]]
    ) -> ToolExecutionResult:
        running[0] += 1
        running[1] = max(running)
        try:
            return await next_(execution)
        finally:
            running[0] -= 1

    location.wrap_execute(counted)
    calls = [
        ToolCall(f"c{i}", "grep", {"regex": "zzz", "path": "big.txt"}, CancelSignal())
        for i in range(_GREPS)
    ]
    tracemalloc.start()
    try:
        batch = run_anyio(execute_batch(location.catalog(), calls))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(type(result) is ToolExecutionSuccess for result in batch.results)
    assert 1 < running[1] <= DEFAULT_PARALLEL_LIMIT  # in parallel, never more than the limit
    assert peak < 2 * DEFAULT_PARALLEL_LIMIT * _HELD_PER_CALL, f"peak {peak} bytes"


# -- 1c. the strict-null walk on a hostile (MCP server's) schema -------------------------------

_SELF_UNION = {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/d"}]}
_CHAIN = {
    f"d{i}": {"anyOf": [{"type": "string"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(3000)
}


@pytest.mark.parametrize(
    "defs", [{"d": _SELF_UNION}, {**_CHAIN, "d": {"$ref": "#/$defs/d0"}, "d3000": {"type": "null"}}]
)
def test_a_model_null_for_a_self_referring_union_is_a_call_not_a_recursion_error(
    defs: dict[str, Any],
) -> None:
    # Found in review (also on 6085b97): `undo_strict_nulls` followed the null into the union's
    # one fitting branch, which led back to the union (or on down a chain of thousands of
    # `$ref`s), and `model_call` raised RecursionError instead of making a call.
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/d"}, "b": {"type": "string"}},
        "required": ["a"],
        "$defs": defs,
    }
    location = Location()
    location.register(
        ToolDefinition(
            name="hostile",
            description="an MCP server's tool",
            parameters=raw_schema(schema).unwrap(),
            output=Output(int),
            execute=_body,
        )
    )
    call = model_call("c1", "hostile", '{"a": null}', location.catalog())
    assert call.arguments == {"a": None}
    assert call.arguments_error is None
