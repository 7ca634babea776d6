"""Asks answered by LangGraph's human in the loop: `interrupt()` inside a run with a checkpointer.

The first time a call asks, `interrupt` stops the graph with the ask (`AskInterrupt`: the call,
its tool and arguments, the permission, patterns and reason) as the interrupt's value; the host
shows it to its human and resumes with `Command(resume=answer)`, where an answer is
`"allowed-once"`, `"allowed-always"`, `"rejected"` or `{"feedback": "..."}` (a rejection the
model reads). The tool
then runs again from the start, and LangGraph hands each `interrupt` of that run, in order, the
answer it was given, so the asks already answered are not shown twice and only a new one stops
the graph again. A resume value of another shape is refused by LangGraph (`response_schema`)
before the call runs, and the interrupt can be answered again. A call that shares its task with
another toolfx call never interrupts it (see `_shared_tasks.py`).

Outside a LangGraph run with a checkpointer (a plain `invoke`, a graph compiled without one)
there is nothing to resume, so the runtime's own approvals answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from typing_extensions import TypedDict

try:  # the face imports this module first: without the extra, say which one to install
    from langchain_core.runnables.config import var_child_runnable_config
    from langgraph.constants import CONFIG_KEY_CHECKPOINTER
    from langgraph.errors import GraphInterrupt
    from langgraph.types import interrupt
    from pydantic import RootModel
except ImportError as _missing:
    raise ImportError(
        f"toolfx.interpreters.langchain needs {_missing.name}: "
        "install toolfx-interpreters[langchain]",
        name=_missing.name,
    ) from _missing

from toolfx.core import JsonValue, RejectedWithFeedback, thaw_json
from toolfx.interpreters.langchain._shared_tasks import TASKS

if TYPE_CHECKING:
    from toolfx.core import ApprovalReply, ApprovalRequest
    from toolfx.interpreters.langchain._shared_tasks import TaskKey

__all__ = ["ApprovalAnswer", "AskInterrupt", "Feedback", "decide_in_graph", "graph_task"]


class Feedback(TypedDict):
    """A rejection with a correction for the model, as a resume value."""

    feedback: str


ApprovalAnswer: TypeAlias = Literal["allowed-once", "allowed-always", "rejected"] | Feedback
"""What a LangGraph host resumes an ask with: `Command(resume=answer)`."""


class AskInterrupt(TypedDict):
    """The value of the interrupt an ask raises: which call asks what, why, and what
    `"allowed-always"` would allow from then on (`always`, empty when it is not offered)."""

    call_id: str
    tool: str
    arguments: JsonValue
    permission: str
    patterns: list[str]
    reason: str | None
    always: list[str]


class _Answer(RootModel[ApprovalAnswer]):
    """The resume value LangGraph validates before `interrupt` returns it."""


def graph_task() -> TaskKey | None:
    """The LangGraph task running now, when it runs under a checkpointer; None otherwise."""
    configurable = (var_child_runnable_config.get() or {}).get("configurable", {})
    if configurable.get(CONFIG_KEY_CHECKPOINTER) is None:
        return None
    return str(configurable.get("thread_id")), str(configurable.get("checkpoint_ns", ""))


def decide_in_graph(task: TaskKey | None, request: ApprovalRequest) -> ApprovalReply | None:
    """The graph's human's answer to `request` (interrupting the graph to get it), or None
    outside a LangGraph run with a checkpointer.

    `task` is the call's LangGraph task when the call is known by its tool call id: there the
    interrupt, or the answer, is refused (`SharedTask` raised instead) when another call
    shares the task.
    """
    if graph_task() is None:
        return None
    asked = AskInterrupt(
        call_id=request.call_id,
        tool=request.tool,
        arguments=thaw_json(request.arguments),
        permission=request.permission,
        patterns=list(request.patterns),
        reason=request.reason,
        always=list(request.always),
    )
    try:
        answer = interrupt(asked, response_schema=_Answer).root
    except GraphInterrupt:
        _refuse_if_shared(task, request.call_id)
        raise
    _refuse_if_shared(task, request.call_id)
    return answer if isinstance(answer, str) else RejectedWithFeedback(answer["feedback"])


def _refuse_if_shared(task: TaskKey | None, call_id: str) -> None:
    """Note the call's ask in its task; raise `SharedTask` when another call shares the task."""
    refused = None if task is None else TASKS.ask(task, call_id)
    if refused is not None:
        raise refused from None
