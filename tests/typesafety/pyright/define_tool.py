"""What pyright infers for define_tool, and which misuse it rejects (as test_define_tool.yml)."""

from dataclasses import dataclass
from typing import Literal, TypedDict, assert_type

from returns.result import Failure, Result, Success

from toolfx.core import (
    ContentBlock,
    Output,
    TextBlock,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
    WithContent,
    define_tool,
    text,
)


class Args(TypedDict):
    path: str


class Other(TypedDict):
    count: int


class Modes(TypedDict):
    mode: Literal["a", "b"]


@dataclass(frozen=True)
class Size:
    size: int


def size(args: Args, ctx: ToolRunContext) -> int:
    return len(args["path"])


def count(args: Other, ctx: ToolRunContext) -> int:
    return args["count"]


async def measured(args: Modes, ctx: ToolRunContext) -> Size:
    return Size(1)


def checked(args: Args, ctx: ToolRunContext) -> Result[int, ToolFailure]:
    return Success(1) if args["path"] else Failure(ToolFailure("empty path"))


async def checked_async(args: Args, ctx: ToolRunContext) -> Result[int, ToolFailure]:
    return Success(1)


def value_or_failure(args: Args, ctx: ToolRunContext) -> int | Result[int, ToolFailure]:
    return len(args["path"]) if args["path"] else Failure(ToolFailure("empty path"))


async def value_or_failure_async(args: Args, ctx: ToolRunContext) -> int | Result[int, ToolFailure]:
    return 1


def with_content(args: Args, ctx: ToolRunContext) -> WithContent[int]:
    return WithContent(1, (TextBlock("one"),))


async def with_content_async(
    args: Args, ctx: ToolRunContext
) -> Result[WithContent[int], ToolFailure]:
    return Success(WithContent(1, [TextBlock("one")]))


def named(args: Args, ctx: ToolRunContext) -> str:
    return args["path"]


def named_with_content(args: Args, ctx: ToolRunContext) -> WithContent[str]:
    return WithContent("one", (TextBlock("one"),))


def render(args: Args, value: int) -> tuple[ContentBlock, ...]:
    return text(args["path"] * value)


def render_text(args: Args, value: str) -> tuple[ContentBlock, ...]:
    return text(value)


def present(args: Args) -> None:
    assert args["path"]


def present_number(args: int) -> None:
    assert args


# inference: the arguments and the output, from plain, async and Result bodies
assert_type(
    define_tool(name="t", description="d", parameters=Args, output=Output(int), execute=size),
    ToolDefinition[Args, int],
)
assert_type(
    define_tool(name="t", description="d", parameters=Modes, output=Output(Size), execute=measured),
    ToolDefinition[Modes, Size],
)
assert_type(
    define_tool(name="t", description="d", parameters=Args, output=Output(int), execute=checked),
    ToolDefinition[Args, int],
)
assert_type(
    define_tool(
        name="t", description="d", parameters=Args, output=Output(int), execute=checked_async
    ),
    ToolDefinition[Args, int],
)
assert_type(
    define_tool(
        name="t", description="d", parameters=Args, output=Output(int), execute=with_content
    ),
    ToolDefinition[Args, int],
)
assert_type(
    define_tool(
        name="t", description="d", parameters=Args, output=Output(int), execute=with_content_async
    ),
    ToolDefinition[Args, int],
)

# a body giving its value or a Result of it (rejected before: no overload took the union)
assert_type(
    define_tool(
        name="t", description="d", parameters=Args, output=Output(int), execute=value_or_failure
    ),
    ToolDefinition[Args, int],
)
assert_type(
    define_tool(
        name="t",
        description="d",
        parameters=Args,
        output=Output(int),
        execute=value_or_failure_async,
    ),
    ToolDefinition[Args, int],
)

# one Output value serves tools of any argument type (rejected before: Output was invariant)
shared = Output(int)
assert_type(shared, Output[object, int])
assert_type(
    define_tool(name="a", description="d", parameters=Args, output=shared, execute=size),
    ToolDefinition[Args, int],
)
assert_type(
    define_tool(name="b", description="d", parameters=Other, output=shared, execute=count),
    ToolDefinition[Other, int],
)

# renderers and presenters see the typed arguments and value
define_tool(
    name="t",
    description="d",
    parameters=Args,
    output=Output(int, render=render),
    execute=size,
    present_call=present,
    is_concurrency_safe=lambda a: a["path"].startswith("/"),
)
define_tool(  # every call with valid arguments may overlap its siblings
    name="t",
    description="d",
    parameters=Args,
    output=Output(int),
    execute=size,
    is_concurrency_safe=True,
)
define_tool(
    name="t",
    description="d",
    parameters=Args,
    output=Output(int, render=lambda a, v: text(a["path"] + str(v + 1))),
    execute=size,
)

# misuse: each marked line must give exactly the error its comment names
define_tool(
    name="t",
    description="d",
    parameters=Args,
    output=Output(int),
    execute=count,  # pyright: ignore[reportArgumentType]
)
define_tool(
    name="t",
    description="d",
    parameters=Args,
    output=Output(int),
    execute=named,  # pyright: ignore[reportArgumentType]
)
define_tool(
    name="t",
    description="d",
    parameters=Args,
    output=Output(int),
    execute=named_with_content,  # pyright: ignore[reportArgumentType]
)
define_tool(
    name="t",
    description="d",
    parameters=Args,
    output=Output(int, render=render_text),  # pyright: ignore[reportArgumentType]
    execute=size,
)
define_tool(
    name="t",
    description="d",
    parameters=Args,
    output=Output(int),
    execute=size,
    present_call=present_number,  # pyright: ignore[reportArgumentType]
)
define_tool(
    name="t",
    description="d",
    parameters=Args,
    output=Output(int),
    execute=size,
    is_concurrency_safe="yes",  # pyright: ignore[reportArgumentType]
)
