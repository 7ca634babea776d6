"""toolfx tools inside pydantic-ai: a Location or Catalog as a toolset run through the pipeline.

    agent = Agent(model, toolsets=[toolset(location)], output_type=[str, DeferredToolRequests])

Every call runs toolfx's whole pipeline (validation, rules, approvals, guards, wrappers,
observers, records) on the anyio interpreter. An ask no rule answers ends the run with
`DeferredToolRequests` (the ask in its metadata); resume with
`DeferredToolResults(approvals={call_id: True})` or a denial (`asks="runtime"`: the runtime's own
approvals answer instead). A failed call reaches the model as
a failed tool result with its code and message. Needs the `pydantic-ai` extra.
"""

from toolfx.core.public import publish
from toolfx.interpreters.pydantic_ai._toolset import AskRoute, ToolfxToolset, toolset

__all__ = ["AskRoute", "ToolfxToolset", "toolset"]

publish(__name__, __all__, globals())
