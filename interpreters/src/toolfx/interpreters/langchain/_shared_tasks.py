"""Calls that share one LangGraph task under a checkpointer: an ask there would be unsafe.

LangGraph resumes an interrupted task by running the whole task again and handing its
`interrupt()`s the answers by order (langgraph#6533). When one task runs several tool calls (a
`ToolNode` given a whole turn), they run side by side, so on resume an answer can reach a call it
was not shown for, and a call that finished before the interrupt runs a second time. So, per
task, the calls admitted to run and the one that asks are noted, and:

- a call whose ask would interrupt the task, or takes an answer, while another call of its task
  was admitted, is refused and ends before its effect;
- a call that starts after another call of its task asked is refused and does not run, in that
  run and in the resumed runs, so the resume's answers reach the call they were shown for.

Either way a task is never interrupted with a sibling that ran, so nothing runs twice, and the
refused call tells the model (and the developer) to give each call a task of its own (one `Send`
per call). A task is known by its LangGraph thread and checkpoint namespace (which holds the task
id). The register lives in this process and keeps the most recent MAX_OPEN_CALLS tasks: a task
resumed in another process starts with nothing noted, and if there the wrong call of a shared task
starts and asks before the call that was shown the ask has started, it takes that call's answer.
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
    """The toolfx calls admitted to run in one task, and the one that asked."""

    admitted: set[str] = field(default_factory=set)
    asked: set[str] = field(default_factory=set)


@final
class TaskCalls:
    """Per LangGraph task, the toolfx calls admitted to run in it and the one that asked."""

    __slots__ = ("_lock", "_tasks")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tasks: dict[TaskKey, _Task] = {}

    def start(self, task: TaskKey, call_id: str) -> SharedTask | None:
        """Admit `call_id` to run in `task`; a refusal (not admitted) when another call asked."""
        with self._lock:
            seen = self._task(task)
            others = seen.asked - {call_id}
            if not others:
                seen.admitted.add(call_id)
        return SharedTask(call_id, frozenset(others)) if others else None

    def ask(self, task: TaskKey, call_id: str) -> SharedTask | None:
        """Note that `call_id` asks in `task` (interrupts it or takes its answer); a refusal
        (and no note) when another call was admitted to the task."""
        with self._lock:
            seen = self._task(task)
            others = seen.admitted - {call_id}
            if not others:
                seen.asked.add(call_id)
        return SharedTask(call_id, frozenset(others)) if others else None

    def _task(self, task: TaskKey) -> _Task:
        seen = self._tasks.get(task)
        if seen is None:
            seen = bounded(self._tasks)[task] = _Task()
        return seen


TASKS: TaskCalls = TaskCalls()
"""The process's register: calls of one task may come from tools of several `tools()` calls."""
