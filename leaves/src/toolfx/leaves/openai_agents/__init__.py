"""OpenAI Agents SDK function tools registered in a Location, called through toolfx's pipeline.

`register(location, tools)` (extra `openai-agents`): each tool's calls are validated against its
schema, then pass rules, guards and wrappers before the SDK tool runs.
"""

from toolfx.core.public import publish
from toolfx.leaves.openai_agents._definitions import definitions, register

__all__ = ["definitions", "register"]

publish(__name__, __all__, globals())
