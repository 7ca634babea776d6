"""toolfx tools inside the OpenAI Agents SDK, every call through toolfx's whole pipeline.

`function_tools(location)` gives a catalog's tools as the SDK's `FunctionTool`s (extra
`openai-agents`); an ask interrupts the run for the SDK's approvals (`result.interruptions`,
`state.approve` or `state.reject`, then `Runner.run(agent, state)`).
"""

from toolfx.core.public import publish
from toolfx.interpreters.openai_agents._tools import function_tools

__all__ = ["function_tools"]

publish(__name__, __all__, globals())
