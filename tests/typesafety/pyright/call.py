"""A typed call keeps the output type and takes only the tool's arguments (as the mypy case)."""

from dataclasses import dataclass
from typing import TypedDict, assert_type

from returns.context import RequiresContextFutureResult

from toolfx.core import (
    CancelSignal,
    JsonError,
    Location,
    Output,
    Runtime,
    ToolCall,
    ToolFailure,
    ToolRunContext,
    call,
    define_tool,
)


class Args(TypedDict):
    path: str


class Other(TypedDict):
    count: int


@dataclass(frozen=True)
class Size:
    size: int


def body(args: Args, ctx: ToolRunContext) -> Size:
    return Size(len(args["path"]))


tool = define_tool(name="size", description="d", parameters=Args, output=Output(Size), execute=body)
catalog = Location().catalog()
sized = call(catalog, tool, call_id="1")({"path": "a"})
assert_type(sized, RequiresContextFutureResult[Size, ToolFailure, Runtime])
assert_type(sized.map(lambda s: s.size + 1), RequiresContextFutureResult[int, ToolFailure, Runtime])
# returns' higher-kinded emulation leaves an Unknown in `bind`'s own type under pyright
again = sized.map(lambda s: Args(path=str(s.size))).bind(  # pyright: ignore[reportUnknownMemberType]
    call(catalog, tool, call_id="2")
)
assert_type(again, RequiresContextFutureResult[Size, ToolFailure, Runtime])

call(catalog, tool, call_id="1")({"path": 3})  # pyright: ignore[reportArgumentType]
call(catalog, tool, call_id="1")(Other(count=1))  # pyright: ignore[reportArgumentType]

# A call from the model's JSON text: a ToolCall; text or bytes only.
from_text = ToolCall.from_json("2", "size", '{"path": "a"}', CancelSignal())
assert_type(from_text, ToolCall)
assert_type(
    ToolCall.from_json("3", "size", b"{}", CancelSignal()).arguments_error, JsonError | None
)
ToolCall.from_json("4", "size", {"path": "a"}, CancelSignal())  # pyright: ignore[reportArgumentType]
