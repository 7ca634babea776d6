"""A toolfx Location or Catalog as LangChain tools, each call run through toolfx's pipeline.

    agent_tools = tools(location)                      # list[BaseTool]
    graph = ...ToolNode(agent_tools)...                # compiled with a checkpointer

Every call goes through validation, rules, approvals, guards, wrappers, observers and the
durable records. A failure reaches the model as a `ToolMessage` with `status="error"`. Inside a
LangGraph run with a checkpointer an ask interrupts the graph (`AskInterrupt` is the interrupt's
value) and the host resumes it with `Command(resume=answer)` (an `ApprovalAnswer`); elsewhere the
runtime's approvals answer. Give each tool call a task of its own (route one `Send` per call to
the `ToolNode`): LangGraph resumes a task by running it again and matches its answers to its
interrupts by order (langgraph#6533), so a call that would interrupt a task another toolfx call
shares, or run in a task another call interrupted, is refused before its effect (DENIED).
Needs the `langchain` extra of toolfx-interpreters.
"""

from toolfx.core.public import publish
from toolfx.interpreters.langchain._asks import ApprovalAnswer, AskInterrupt, Feedback
from toolfx.interpreters.langchain._tools import tools

__all__ = ["ApprovalAnswer", "AskInterrupt", "Feedback", "tools"]

publish(__name__, __all__, globals())
