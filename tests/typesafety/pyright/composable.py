"""The pipeline composed with returns' combinators: what pyright infers (as test_composable.yml)."""

from typing import assert_type

from returns.context import RequiresContextFutureResult
from returns.result import Result

from toolfx.core import (
    CancelSignal,
    Description,
    FrozenJson,
    Location,
    Runtime,
    ToolCall,
    ToolFailure,
    call_tool,
    described,
)

catalog = Location().catalog()
first = call_tool(catalog, ToolCall("1", "read", {"path": "a"}, CancelSignal()))
assert_type(first, RequiresContextFutureResult[FrozenJson, ToolFailure, Runtime])
sized = first.map(lambda value: len(str(value)))
assert_type(sized, RequiresContextFutureResult[int, ToolFailure, Runtime])
# returns' higher-kinded emulation leaves an Unknown in `bind`'s own type under pyright
chained = sized.bind(  # pyright: ignore[reportUnknownMemberType]
    lambda n: call_tool(catalog, ToolCall("2", "write", {"n": n}, CancelSignal()))
)
assert_type(described(chained), Description[Result[FrozenJson, ToolFailure]])
