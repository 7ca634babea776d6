"""The default renderer writes the checked JSON of every output kind `schema_of` accepts."""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NewType, NotRequired, TypedDict

import pytest

from toolfx.core.json import JsonValue
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import Output, TextBlock, ToolExecutionSuccess, ToolRunContext, define_tool
from toolfx.interpreters.sync import run_sync


class Args(TypedDict):
    pass


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1


class Circle(TypedDict):
    kind: Literal["circle"]
    radius: float


class Square(TypedDict):
    kind: Literal["square"]
    side: float
    note: NotRequired[str]


@dataclass(frozen=True)
class Point:
    x: float
    color: Color
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Path:
    points: tuple[Point, ...]
    closed: bool | None = None


UserId = NewType("UserId", str)

KINDS: list[tuple[object, object, str]] = [
    (str, "plain", "plain"),
    (int, 3, "3"),
    (float, 1.5, "1.5"),
    (bool, True, "true"),
    (None, None, "null"),
    (Literal["a", "b"], "b", "b"),
    (Color, Color.BLUE, "blue"),
    (Level, Level.LOW, "1"),
    (UserId, UserId("u1"), "u1"),
    (list[int], [1, 2], "[1,2]"),
    (tuple[str, ...], ("a", "é"), '["a","é"]'),
    (Sequence[int], (1,), "[1]"),
    (Annotated[int, "a count"], 4, "4"),
    (Square, {"kind": "square", "side": 2.0}, '{"kind":"square","side":2.0}'),
    (Circle | Square, {"kind": "circle", "radius": 1.0}, '{"kind":"circle","radius":1.0}'),
    (int | None, None, "null"),
    (Point, Point(1.0, Color.RED), '{"x":1.0,"color":"red","tags":[]}'),
    (
        Path,
        Path((Point(0.5, Color.BLUE, ("t",)),)),
        '{"points":[{"x":0.5,"color":"blue","tags":["t"]}],"closed":null}',
    ),
    (list[Point], [Point(2.0, Color.RED)], '[{"x":2.0,"color":"red","tags":[]}]'),
    (JsonValue, {"a": [1, None]}, '{"a":[1,null]}'),
    (dict[str, JsonValue], {"k": "v"}, '{"k":"v"}'),
]


@pytest.mark.parametrize(("output", "value", "rendered"), KINDS, ids=[repr(k[0]) for k in KINDS])
def test_every_output_kind_renders_as_its_json(output: Any, value: object, rendered: str) -> None:
    def body(args: Args, ctx: ToolRunContext) -> object:
        return value

    location = Location()
    location.register(
        define_tool(
            name="out", description="d", parameters=Args, output=Output(output), execute=body
        )
    )
    call = ToolCall("c", "out", {}, CancelSignal())
    result = run_sync(execute(location.catalog(), call))
    assert isinstance(result, ToolExecutionSuccess), result
    assert result.content == (TextBlock(rendered),)


@pytest.mark.parametrize("value", [True, False, None, 0, -7, 10**40, "x", "", "é", 1.5, [1], {}])
def test_scalars_written_without_the_encoder_read_as_the_encoder_writes_them(value: object) -> None:
    from toolfx.core.tools import render_json

    (block,) = render_json(None, value)
    assert isinstance(block, TextBlock)
    expected = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    assert block.text == expected
