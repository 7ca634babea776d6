"""The LangChain adapters under pyright strict (as the mypy cases)."""

from typing import assert_type

from langchain_core.tools import BaseTool, tool

from toolfx.core import Disposer, FrozenJson, JsonValue, Location, ToolDefinition
from toolfx.interpreters import AnyioRuntime
from toolfx.interpreters.langchain import ApprovalAnswer, tools
from toolfx.leaves.langchain import definitions, register


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


location = Location()
assert_type(tools(location, runtime=AnyioRuntime), list[BaseTool])
tools(location, runtime=AnyioRuntime())  # pyright: ignore[reportArgumentType]
once: ApprovalAnswer = "allowed-once"
maybe: ApprovalAnswer = "maybe"  # pyright: ignore[reportAssignmentType]
assert_type(definitions([add]), tuple[ToolDefinition[FrozenJson, JsonValue], ...])
assert_type(register(location, [add], namespace="lc"), Disposer)
