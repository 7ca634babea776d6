"""A toolfx Location or Catalog as LangChain tools, each call run through toolfx's pipeline.

    agent_tools = tools(location)                      # list[BaseTool]
    graph = ...ToolNode(agent_tools)...                # compiled with a checkpointer

Every call goes through validation, rules, approvals, guards, wrappers, observers and the
durable records. A failure reaches the model as a `ToolMessage` with `status="error"`. Inside a
LangGraph run with a checkpointer an ask interrupts the graph (`AskInterrupt` is the interrupt's
value) and the host resumes it with `Command(resume=answer)` (an `ApprovalAnswer`); elsewhere the
runtime's approvals answer. Each tool call must run as a task of its own for its answers to be
matched to it (LangGraph's `ToolNode` fed one call per `Send`, as `create_react_agent` does).
Needs the `langchain` extra of toolfx-interpreters.
"""

from toolfx.core.public import publish
from toolfx.interpreters.langchain._asks import ApprovalAnswer, AskInterrupt, Feedback
from toolfx.interpreters.langchain._tools import tools

__all__ = ["ApprovalAnswer", "AskInterrupt", "Feedback", "tools"]

publish(__name__, __all__, globals())
