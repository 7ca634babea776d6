"""The OpenAI Agents SDK adapters: what pyright infers, and what it refuses."""

from typing import assert_type

from agents import FunctionTool, function_tool

from toolfx.core import Disposer, FrozenJson, JsonValue, Location, ToolDefinition
from toolfx.interpreters import AnyioRuntime
from toolfx.interpreters.openai_agents import function_tools
from toolfx.leaves.openai_agents import definitions, register

location = Location()
assert_type(function_tools(location, runtime=AnyioRuntime), list[FunctionTool])
assert_type(function_tools(location.catalog(), scope="reviewer"), list[FunctionTool])
function_tools("tools")  # pyright: ignore[reportArgumentType]


@function_tool
def shout(text: str) -> str:
    """Say it louder."""
    return text.upper()


assert_type(register(location, [shout], namespace="sdk"), Disposer)
assert_type(definitions([shout]), tuple[ToolDefinition[FrozenJson, JsonValue], ...])
register(location, [len])  # pyright: ignore[reportArgumentType]
