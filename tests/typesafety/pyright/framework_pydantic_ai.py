"""The pydantic-ai adapters: what pyright infers, and what it refuses."""

from dataclasses import dataclass
from typing import assert_type

from pydantic_ai import Agent, FunctionToolset, Tool
from pydantic_ai.models.test import TestModel

from toolfx.core import Disposer, FrozenJson, JsonValue, Location, ToolDefinition
from toolfx.interpreters import AnyioRuntime
from toolfx.interpreters.pydantic_ai import ToolfxToolset, toolset
from toolfx.leaves.pydantic_ai import definitions, register


@dataclass
class Deps:
    user: str


location = Location()
tools = toolset(location, runtime=AnyioRuntime, id="files")
assert_type(tools, ToolfxToolset)
agent = Agent(TestModel(), deps_type=Deps, toolsets=[tools, ToolfxToolset(location.catalog())])
assert_type(agent, Agent[Deps, str])

toolset({"read": 1})  # pyright: ignore[reportArgumentType]
toolset(location, runtime=object)  # pyright: ignore[reportArgumentType]


def shout(word: str) -> str:
    return word.upper()


assert_type(definitions([Tool(shout)]), tuple[ToolDefinition[FrozenJson, JsonValue], ...])
assert_type(register(location, FunctionToolset([shout]), namespace="loud"), Disposer)
register(location, [shout])  # pyright: ignore[reportArgumentType]
