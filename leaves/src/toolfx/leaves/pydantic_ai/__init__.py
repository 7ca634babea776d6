"""pydantic-ai tools in a Location: `register(location, tools)` runs them through the pipeline.

    disposer = register(location, FunctionToolset([search, fetch]), namespace="web")

Each pydantic-ai `Tool` (or each tool of a `FunctionToolset`) becomes a toolfx tool with its
name, description and JSON schema; calls go through validation, rules, guards, wrappers and
observers before the function runs. Tools that need an agent run's `RunContext` are refused
with a `PydanticAIToolError` naming them. Needs the `pydantic-ai` extra.
"""

from toolfx.core.public import publish
from toolfx.leaves.pydantic_ai._tools import (
    PydanticAIToolError,
    PydanticAITools,
    definitions,
    register,
)

__all__ = ["PydanticAIToolError", "PydanticAITools", "definitions", "register"]

publish(__name__, __all__, globals())
