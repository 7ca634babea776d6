"""Showing a session: each log record as it comes, as panels (or JSON lines), then a summary.

A Code Mode program's tool calls (a `tool/call` with a parent, settled by its `tool/code-dispatch`)
are shown nested under the program's card, one card each when it settles: the call and the
content the log keeps. A call a journal had settled before the run is shown once, as a cyan card
marked `replayed` (nothing ran again).

What is shown is a function of the records and the tools' presenters only, so a live run and
the replay of its log print the same bytes (without colour). A progress bar, on a terminal only,
follows a long turn and leaves nothing behind. Text from tools, the session or the log reaches
the terminal only through `visible`, as `Text`, never as markup.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Final, Protocol, final

from returns.result import Success
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.rule import Rule
from rich.text import Text

from toolfx.core.json import JsonValue, thaw_json
from toolfx.core.records import (
    ToolApprovalRecord,
    ToolCallRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
)
from toolfx.core.registry import Catalog
from toolfx.core.runtime import ApprovalReply, ProgressEvent, RejectedWithFeedback
from toolfx.core.tools import (
    DurableResult,
    GenericCallCard,
    GenericResultCard,
    ToolDefinition,
    content_text,
)
from toolfx.interpreters.cli._cards import call_body, result_body
from toolfx.interpreters.cli._log import LogRecord, ReplayedRecord, SessionHeader, TurnRecord
from toolfx.interpreters.cli._visible import visible

__all__ = ["PROGRESS_MIN_CALLS", "Display", "JsonDisplay", "PanelDisplay"]

PROGRESS_MIN_CALLS: Final = 5
"""A turn with more calls than this shows a progress bar (on a terminal)."""

SUB_CALL_INDENT: Final = 4
"""How far a program's tool call is indented under the program's card."""

_REPLIES: Final = {
    "allowed-once": "allowed once",
    "allowed-always": "allowed always",
    "rejected": "rejected",
    "cancelled": "cancelled",
    "unavailable": "no one to ask",
    "deferred": "deferred (answer it with `toolfx approve`)",
}


class Display(Protocol):
    """Where a session's records go to be seen."""

    def show(self, record: LogRecord) -> None:
        """Show one record."""
        ...

    def finish(self) -> None:
        """Close the session: everything has been shown."""
        ...

    def paused(self) -> AbstractContextManager[None]:
        """A context in which nothing live (a progress bar) draws, for a prompt."""
        ...

    def progress(self, event: ProgressEvent) -> None:
        """Show how far a running call has got (a display may leave it out)."""
        ...


def _reply_text(reply: ApprovalReply) -> str:
    if isinstance(reply, RejectedWithFeedback):
        return f"rejected, saying: {visible(reply.feedback, lines=False)}"
    return _REPLIES[reply]


def _reply_kind(reply: ApprovalReply) -> str:
    return "rejected" if isinstance(reply, RejectedWithFeedback) else _REPLIES[reply]


@final
class PanelDisplay:
    """Records as rich panels: a pending card per call, a completed card per result."""

    __slots__ = (
        "_call_tasks",
        "_calls",
        "_catalog",
        "_console",
        "_outcomes",
        "_progress",
        "_replayed",
        "_replies",
        "_sub_outcomes",
        "_task",
    )

    def __init__(self, console: Console, catalog: Catalog) -> None:
        self._console = console
        self._catalog = catalog
        self._calls: dict[str, ToolCallRecord] = {}
        self._outcomes: Counter[str] = Counter()
        self._sub_outcomes: Counter[bool] = Counter()
        self._replies: Counter[str] = Counter()
        self._replayed = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._call_tasks: dict[str, TaskID] = {}

    def show(self, record: LogRecord) -> None:
        """Print the record: a rule for the session and each turn, a panel for each call."""
        console = self._console
        match record:
            case SessionHeader():
                shown = "" if record.present == "native" else f" · tools as {record.present}"
                title = f"toolfx session · {record.interpreter}{shown}"
                console.rule(Text(title, style="bold"))
                workspace = visible(record.workspace, lines=False)
                console.print(Text(f"workspace {workspace}", style="dim"))
            case TurnRecord():
                self._stop_progress()
                console.rule(Text(f"turn {record.turn} · {_counted(record.calls, 'call')}"))
                if console.is_terminal and record.calls > PROGRESS_MIN_CALLS:
                    progress = self._live_progress()
                    self._task = progress.add_task(f"turn {record.turn}", total=record.calls)
            case ToolCallRecord():
                self._calls[record.call_id] = record
                if record.parent_call_id is None:  # a program's call is shown once it settles
                    console.print(self._pending(record))
            case ToolApprovalRecord():
                self._replies[_reply_kind(record.reply)] += 1
                console.print(self._nested(record.call_id, self._approval(record)))
            case ToolResultRecord():
                error = record.result.error
                self._outcomes["ok" if error is None else error.info.code.value] += 1
                console.print(self._completed(record))
                self._call_done(record.call_id)
            case ReplayedRecord():
                self._calls[record.call.call_id] = record.call
                error = record.result.result.error
                self._outcomes["ok" if error is None else error.info.code.value] += 1
                self._replayed += 1
                console.print(self._completed(record.result, replayed=True))
            case ToolCodeDispatchRecord():
                self._sub_outcomes[record.is_error] += 1
                console.print(Padding(self._dispatched(record), (0, 0, 0, SUB_CALL_INDENT)))
                self._call_done(record.call_id, advance=False)

    def finish(self) -> None:
        """Print the summary: calls by outcome, approvals by answer."""
        self._stop_progress()
        outcomes, replies = self._outcomes, self._replies
        total, ok = sum(outcomes.values()), outcomes["ok"]
        codes = ", ".join(f"{code} {n}" for code, n in sorted(outcomes.items()) if code != "ok")
        calls = f"{_counted(total, 'call')}: {ok} succeeded, {total - ok} failed"
        answers = ", ".join(f"{reply} {n}" for reply, n in sorted(replies.items()))
        asks = f"{_counted(sum(replies.values()), 'approval')} asked"
        self._console.rule(Text("summary", style="bold"))
        self._console.print(Text(calls + (f" ({codes})" if codes else "")))
        if self._replayed:
            replayed = f"{self._replayed} replayed from the journal (not run again)"
            self._console.print(Text(replayed))
        made = sum(self._sub_outcomes.values())
        if made:
            failed = self._sub_outcomes[True]
            programs = f"{_counted(made, 'program tool call')}: {made - failed} succeeded"
            self._console.print(Text(f"{programs}, {failed} failed"))
        self._console.print(Text(asks + (f": {answers}" if answers else "")))

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Hide the progress bar (if any) while the caller prompts."""
        progress = self._progress
        if progress is None:
            yield
            return
        progress.stop()
        try:
            yield
        finally:
            progress.start()

    def progress(self, event: ProgressEvent) -> None:
        """On a terminal, a bar for the call on the live progress display; elsewhere nothing."""
        if not self._console.is_terminal:
            return
        progress = self._live_progress()
        task = self._call_tasks.get(event.call_id)
        message = "" if event.message is None else f" · {visible(event.message, lines=False)}"
        description = f"{visible(event.tool, lines=False)}{message}"
        if task is None:
            task = self._call_tasks[event.call_id] = progress.add_task(description, total=None)
        progress.update(task, description=description, completed=event.progress, total=event.total)

    def _live_progress(self) -> Progress:
        if self._progress is None:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=self._console,
                transient=True,
            )
            self._progress.start()
        return self._progress

    def _call_done(self, call_id: str, *, advance: bool = True) -> None:
        """Drop the call's bar; a call of the turn (not a program's) also advances the turn's."""
        progress = self._progress
        if progress is None:
            return
        task = self._call_tasks.pop(call_id, None)
        if task is not None:
            progress.remove_task(task)
        if not advance:
            return
        turn = next((t for t in progress.tasks if t.id == self._task), None)
        if turn is not None:
            progress.advance(turn.id)
        if not self._call_tasks and (turn is None or turn.finished):
            self._stop_progress()

    def _stop_progress(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            self._task = None
            self._call_tasks.clear()

    def _decoded(self, call: ToolCallRecord) -> tuple[ToolDefinition[Any, Any], Any] | None:
        definition = self._catalog.get(call.name)
        if definition is None:
            return None
        args = definition.parameters.validate(call.arguments)
        return (definition, args.unwrap()) if isinstance(args, Success) else None

    def _nested(self, call_id: str, shown: RenderableType) -> RenderableType:
        """What is shown of a call: indented under its program when a program made the call."""
        call = self._calls.get(call_id)
        if call is None or call.parent_call_id is None:
            return shown
        return Padding(shown, (0, 0, 0, SUB_CALL_INDENT))

    def _call_view(self, call: ToolCallRecord) -> RenderableType:
        decoded = self._decoded(call)
        view = None
        if decoded is not None and decoded[0].present_call is not None:
            view = decoded[0].present_call(decoded[1])
        if view is None:
            view = GenericCallCard(title=call.name, raw_input=call.arguments)
        return call_body(view)

    def _pending(self, call: ToolCallRecord) -> RenderableType:
        return _panel(self._call_view(call), call.name, call.call_id, "call", "blue")

    def _dispatched(self, record: ToolCodeDispatchRecord) -> RenderableType:
        """A program's call once settled: its call card and its result as the log keeps it."""
        call = self._calls.get(record.call_id)
        decoded = None if call is None else self._decoded(call)
        view = None
        if not record.is_error and decoded is not None and decoded[0].present_result is not None:
            view = decoded[0].present_result(decoded[1], DurableResult(record.content))
        if view is None:
            view = GenericResultCard(content=content_text(record.content))
        parts = [result_body(view)]
        if call is not None:
            parts[:0] = [self._call_view(call), Rule(style="dim")]
        status, colour = ("failed", "red") if record.is_error else ("done", "green")
        return _panel(Group(*parts), record.name, record.call_id, status, colour)

    def _completed(self, record: ToolResultRecord, *, replayed: bool = False) -> RenderableType:
        call = self._calls.get(record.call_id)
        name = "?" if call is None else call.name
        decoded = None if call is None else self._decoded(call)
        result = record.result
        view = None
        if decoded is not None and decoded[0].present_result is not None:
            view = decoded[0].present_result(decoded[1], result)
        if view is None:
            view = GenericResultCard(content=content_text(result.content))
        status = "done" if result.error is None else result.error.info.code.value
        colour = "green" if result.error is None else "red"
        if replayed:  # one colour for every replay, whatever its result: it did not run now
            status, colour = f"replayed · {status}", "cyan"
        return _panel(result_body(view), name, record.call_id, status, colour)

    def _approval(self, record: ToolApprovalRecord) -> RenderableType:
        call = self._calls.get(record.call_id)
        reply = record.reply
        allowed = reply in ("allowed-once", "allowed-always")
        asked = f"{record.permission} {', '.join(record.patterns)}"
        return Text.assemble(
            ("approval ", "bold yellow"),
            visible(f"{'?' if call is None else call.name} · {record.call_id}: ", lines=False),
            visible(asked, lines=False),
            "" if record.reason is None else visible(f" ({record.reason})", lines=False),
            " → ",
            (_reply_text(reply), "bold green" if allowed else "bold red"),
        )


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _panel(body: RenderableType, name: str, call_id: str, status: str, colour: str) -> Panel:
    return Panel(
        body,
        title=Text(visible(f"{name} · {call_id}", lines=False)),
        title_align="left",
        subtitle=Text(status),
        subtitle_align="right",
        border_style=colour,
    )


@final
class JsonDisplay:
    """Records as JSON lines: one object per completed call (a program's calls too, with their
    `parentCallId`; a call replayed from a journal with `"replayed": true`), for machines."""

    __slots__ = ("_names", "_write")

    def __init__(self, write: Callable[[str], object]) -> None:
        self._write = write
        self._names: dict[str, str] = {}

    def show(self, record: LogRecord) -> None:
        """Print a result as one JSON object; remember the tool name of a call."""
        if isinstance(record, ToolCallRecord):
            self._names[record.call_id] = record.name
        elif isinstance(record, ToolResultRecord):
            self._write(json.dumps(_result_json(self._names.get(record.call_id), record)) + "\n")
        elif isinstance(record, ReplayedRecord):
            shown = _result_json(record.call.name, record.result)
            self._write(json.dumps({**shown, "replayed": True}) + "\n")
        elif isinstance(record, ToolCodeDispatchRecord):
            self._write(json.dumps(_dispatch_json(record)) + "\n")

    def finish(self) -> None:
        """Nothing follows the last result."""

    def progress(self, event: ProgressEvent) -> None:
        """Results only: progress is left out."""

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing draws live here."""
        yield


def _result_json(name: str | None, record: ToolResultRecord) -> dict[str, JsonValue]:
    result, error = record.result, record.result.error
    return {
        "callId": record.call_id,
        "tool": name,
        "isError": result.is_error,
        "content": content_text(result.content),
        "error": None
        if error is None
        else {"code": error.info.code.value, "message": error.message},
        "meta": thaw_json(result.meta),
    }


def _dispatch_json(record: ToolCodeDispatchRecord) -> JsonValue:
    return {
        "callId": record.call_id,
        "parentCallId": record.parent_call_id,
        "tool": record.name,
        "isError": record.is_error,
        "content": content_text(record.content),
    }
