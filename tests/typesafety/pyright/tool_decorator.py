"""What pyright infers for @tool, and which misuse it rejects (as test_tool_decorator.yml)."""

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import assert_type

from returns.result import Result, Success

from toolfx.core import (
    Location,
    ToolDecorator,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
    WithContent,
    call,
    text,
    tool,
)


@dataclass(frozen=True)
class Hits:
    total: int


@dataclass(frozen=True)
class Db:
    rows: int


@tool
def plain(pattern: str, limit: int = 10) -> Hits:
    """Search."""
    return Hits(limit)


@tool
async def later(pattern: str) -> list[str]:
    """Search later."""
    return [pattern]


@tool(name="counted", timeout=5, parallel_safe=True)
def failing(table: str) -> Result[int, ToolFailure]:
    """Count."""
    return Success(len(table))


@tool(namespace="web")
async def shown(table: str) -> Result[WithContent[int], ToolFailure]:
    """Count, shown."""
    return Success(WithContent(1, text("one")))


@tool
def with_content(table: str) -> WithContent[str]:
    """Shown."""
    return WithContent(table, text(table))


@tool
def needs(table: str, ctx: ToolRunContext[Db]) -> int:
    """Rows."""
    assert_type(ctx.deps, Db)
    return ctx.deps.rows


@tool
def nothing(ctx: ToolRunContext) -> None:
    """Nothing."""
    assert_type(ctx.deps, object)


assert_type(plain, ToolDefinition[Mapping[str, object], Hits])
assert_type(later, ToolDefinition[Mapping[str, object], list[str]])
assert_type(failing, ToolDefinition[Mapping[str, object], int])
assert_type(shown, ToolDefinition[Mapping[str, object], int])
assert_type(with_content, ToolDefinition[Mapping[str, object], str])
assert_type(needs, ToolDefinition[Mapping[str, object], int])
assert_type(nothing, ToolDefinition[Mapping[str, object], None])
assert_type(tool(name="x"), ToolDecorator)


def transfer(amount: int, account: str) -> str:
    """Transfer money."""
    return account


class Account:
    def debit(self, amount: int) -> int:
        """Debit."""
        return amount

    async def __call__(self, amount: int) -> bool:
        """Pay later."""
        return True


@functools.cache
def fee(amount: int) -> float:
    """The fee."""
    return amount / 10


fixed = tool(name="transfer")(functools.partial(transfer, account="alice"))
assert_type(fixed, ToolDefinition[Mapping[str, object], str])
assert_type(tool(Account().debit), ToolDefinition[Mapping[str, object], int])
assert_type(tool(name="pay")(Account()), ToolDefinition[Mapping[str, object], bool])
assert_type(tool(fee), ToolDefinition[Mapping[str, object], float])

_ = Location().register(plain)
_ = call(Location().catalog(), plain, call_id="c")({"pattern": "p"})

tool(timeout="soon")  # pyright: ignore[reportArgumentType]
tool(parallel_safe="yes")  # pyright: ignore[reportArgumentType]
tool(3)  # pyright: ignore[reportCallIssue, reportArgumentType]
