"""Calls that share one LangGraph task under a checkpointer: an ask there would be unsafe.

LangGraph resumes an interrupted task by running the whole task again and handing its
`interrupt()`s the answers by order (langgraph#6533). When one task runs several tool calls (a
`ToolNode` given a whole turn), they run side by side, so on resume an answer can reach a call it
was not shown for, and a call that finished before the interrupt runs a second time. So a toolfx
call never interrupts a task that another toolfx call shares, and never runs in a task where
another call has interrupted:

- a call about to interrupt (an ask with no answer yet) while another call of its task has
  started does not interrupt: it ends before its effect, refused;
- a call that starts after another call of its task has interrupted does not run, refused, in
  that run and in the resumed runs, so the resume's answers reach the call they were shown for.

Either way the task is never interrupted with a sibling that ran, so nothing runs twice, and the
refused call tells the model (and the developer) to give each call a task of its own (one `Send`
per call). The calls of a task are known by the LangGraph thread and the task's checkpoint
namespace (which holds the task id); the register lives in this process and keeps the most recent
MAX_OPEN_CALLS tasks.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import final

from toolfx.core import ErrorCode, TextBlock, ToolExecutionFailure, ToolFailure
from toolfx.interpreters._framework_asks import bounded

__all__ = ["TASKS", "SharedTask", "TaskCalls", "TaskKey"]

TaskKey = tuple[str, str]
"""A LangGraph task: its thread id and its checkpoint namespace."""


@final
class SharedTask(Exception):
    """A call refused because it shares its LangGraph task with `others`."""

    def __init__(self, call_id: str, others: frozenset[str]) -> None:
        self.call_id = call_id
        self.others = others
        listed = ", ".join(sorted(others))
        super().__init__(
            f"toolfx did not run call {call_id!r}: it shares one LangGraph task with call(s) "
            f"{listed} under a checkpointer, where an approval would interrupt the task, run "
            "its calls again on resume and match answers to calls by order. Give each tool "
            "call a task of its own: route one `Send` per call to the ToolNode."
        )

    def failure(self) -> ToolExecutionFailure:
        """The refusal as the call's DENIED failure, naming the calls it shares its task with."""
        message = str(self)
        details = {"shares_task_with": sorted(self.others)}
        return ToolExecutionFailure(
            ToolFailure.of(ErrorCode.DENIED, message, details), (TextBlock(message),)
        )


@final
@dataclass(slots=True)
class _Task:
    """The toolfx calls seen in one task, and those that interrupted it."""

    calls: set[str] = field(default_factory=set)
    interrupted: set[str] = field(default_factory=set)


@final
class TaskCalls:
    """Per LangGraph task, the toolfx calls that started in it and those that interrupted it."""

    __slots__ = ("_lock", "_tasks")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tasks: dict[TaskKey, _Task] = {}

    def start(self, task: TaskKey, call_id: str) -> SharedTask | None:
        """Note that `call_id` starts in `task`; a refusal when another call interrupted it."""
        with self._lock:
            seen = self._task(task)
            seen.calls.add(call_id)
            others = seen.interrupted - {call_id}
        return SharedTask(call_id, frozenset(others)) if others else None

    def interrupt(self, task: TaskKey, call_id: str) -> SharedTask | None:
        """Note that `call_id` interrupts `task`; a refusal (and no note) when it is shared."""
        with self._lock:
            seen = self._task(task)
            others = seen.calls - {call_id}
            if not others:
                seen.interrupted.add(call_id)
        return SharedTask(call_id, frozenset(others)) if others else None

    def _task(self, task: TaskKey) -> _Task:
        seen = self._tasks.get(task)
        if seen is None:
            seen = bounded(self._tasks)[task] = _Task()
        return seen


TASKS: TaskCalls = TaskCalls()
"""The process's register: calls of one task may come from tools of several `tools()` calls."""
