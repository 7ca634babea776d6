"""Showing a session: each log record as it comes, as lines and cards (or JSON lines), then a
summary.

Compact (the default): a call prints one line when it is recorded (`● read · c1  src/app.py`) and
one when it settles (`✓ read src/app.py · 18 lines`; `_summary` says how each card kind is
summed up, and what counts as failed); a failed call prints its full card instead. An approval is
one line; each tool call of a Code Mode program (a `tool/call` with a parent, settled by its
`tool/code-dispatch`) one line indented under the program; a call a journal had settled before
the run one line marked `↻ replayed` (nothing ran again), failed or not. Verbose: a pending card
per call and a completed card per result, a program's calls as cards nested under it, a replayed
call as a cyan card marked `replayed`.

What is printed is a function of the records and the tools' presenters only, so a live run and
the replay of its log print the same bytes (without colour). On a terminal the live region
(`_live`) shows the running calls, their time and output, and leaves nothing behind. Text from
tools, the session or the log reaches the terminal only through `visible`, as `Text`, never as
markup.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Final, Protocol, final

from returns.result import Success
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from toolfx.core.json import JsonValue, plural, thaw_json
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
    GenericResultCard,
    ToolCallView,
    ToolDefinition,
    ToolResultView,
    content_text,
)
from toolfx.interpreters.cli._cards import call_body, result_body
from toolfx.interpreters.cli._live import SUB_CALL_INDENT, LiveRegion
from toolfx.interpreters.cli._log import LogRecord, ReplayedRecord, SessionHeader, TurnRecord
from toolfx.interpreters.cli._pending import pending_view
from toolfx.interpreters.cli._summary import (
    call_subject,
    failure,
    pending_line,
    result_facts,
    settled_line,
)
from toolfx.interpreters.cli._tally import SessionTally
from toolfx.interpreters.cli._visible import visible, visible_id

__all__ = ["Display", "JsonDisplay", "PanelDisplay"]

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
        """A context in which nothing live (running calls) draws, for a prompt."""
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
    """Records on a console: a line per call and per result (full cards for failures, or for
    every call when `verbose`), running calls live on a terminal, then the summary."""

    __slots__ = ("_calls", "_catalog", "_console", "_live", "_tally", "_verbose")

    def __init__(
        self, console: Console, catalog: Catalog, *, verbose: bool = False, live: bool = True
    ) -> None:
        """`verbose`: every call's cards; `live`: draw running calls (on a terminal only; a
        replay runs nothing)."""
        self._console = console
        self._catalog = catalog
        self._verbose = verbose
        self._calls: dict[str, ToolCallRecord] = {}
        self._tally = SessionTally()
        self._live = LiveRegion(console) if live and console.is_terminal else None

    def show(self, record: LogRecord) -> None:
        """Print the record: a rule for the session and each turn, a line or card for a call;
        then follow it on the live region."""
        console = self._console
        match record:
            case SessionHeader():
                shown = "" if record.present == "native" else f" · tools as {record.present}"
                title = f"toolfx session · {record.interpreter}{shown}"
                console.rule(Text(title, style="bold"))
                workspace = visible(record.workspace, lines=False)
                console.print(Text(f"workspace {workspace}", style="dim"))
            case TurnRecord():
                console.rule(Text(f"turn {record.turn} · {plural(record.calls, 'call')}"))
            case ToolCallRecord():
                self._calls[record.call_id] = record
                if record.parent_call_id is None:  # a program's call is shown once it settles
                    console.print(self._pending(record))
            case ToolApprovalRecord():
                self._tally.asked(_reply_kind(record.reply))
                console.print(self._nested(record.call_id, self._approval(record)))
            case ToolResultRecord():
                console.print(self._settled(record))
            case ReplayedRecord():
                self._calls[record.call.call_id] = record.call
                console.print(self._settled(record.result, replayed=True))
            case ToolCodeDispatchRecord():
                console.print(self._dispatched(record))
        if self._live is not None:
            self._follow(self._live, record)

    def _follow(self, live: LiveRegion, record: LogRecord) -> None:
        """What the record changes on the live region: a call's row comes, restarts its time
        once answered, or goes when the call settles (or waits for `toolfx approve`)."""
        match record:
            case TurnRecord():
                live.turn(record.turn, record.calls)
            case ToolCallRecord():
                live.started(record.call_id, record.name, sub=record.parent_call_id is not None)
            case ToolApprovalRecord() if record.reply == "deferred":  # not running: it waits
                call = self._calls.get(record.call_id)
                in_turn = call is None or call.parent_call_id is None
                live.settled(record.call_id, in_turn=in_turn)
            case ToolApprovalRecord():
                live.answered(record.call_id)
            case ToolResultRecord():
                live.settled(record.call_id, in_turn=True)
            case ReplayedRecord():
                live.settled(record.call.call_id, in_turn=True)
            case ToolCodeDispatchRecord():
                live.settled(record.call_id, in_turn=False)

    def finish(self) -> None:
        """Print the summary: calls by outcome, approvals by answer."""
        if self._live is not None:
            self._live.stop()
        self._console.rule(Text("summary", style="bold"))
        for line in self._tally.lines():
            self._console.print(Text(line))

    def paused(self) -> AbstractContextManager[None]:
        """Stop drawing the running calls (if any) while the caller prompts."""
        return contextlib.nullcontext() if self._live is None else self._live.paused()

    def progress(self, event: ProgressEvent) -> None:
        """On a terminal, the call's progress and last output lines under its live row;
        elsewhere nothing."""
        if self._live is not None:
            self._live.reported(event)

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

    def _call_view(self, call: ToolCallRecord) -> ToolCallView:
        return pending_view(self._catalog, call.name, call.arguments)

    def _subject(self, call: ToolCallRecord | None) -> str:
        return "" if call is None else call_subject(call.name, self._call_view(call))

    def _result_view(self, call: ToolCallRecord | None, result: DurableResult) -> ToolResultView:
        """The tool's card of a result, or its content as a generic card."""
        decoded = None if call is None else self._decoded(call)
        view = None
        if decoded is not None and decoded[0].present_result is not None:
            view = decoded[0].present_result(decoded[1], result)
        return GenericResultCard(content=content_text(result.content)) if view is None else view

    def _pending(self, call: ToolCallRecord) -> RenderableType:
        if not self._verbose:
            return pending_line(call.name, call.call_id, self._subject(call))
        return _panel(call_body(self._call_view(call)), call.name, call.call_id, "call", "blue")

    def _dispatched(self, record: ToolCodeDispatchRecord) -> RenderableType:
        """A program's call once settled: a line, or (verbose, failed) its call card and its
        result as the log keeps it."""
        call = self._calls.get(record.call_id)
        view: ToolResultView = GenericResultCard(content=content_text(record.content))
        if not record.is_error:
            view = self._result_view(call, DurableResult(record.content))
        failed = record.is_error or failure(None, view) is not None
        self._tally.sub_call(failed=failed)
        if not self._verbose and not failed:
            subject = self._subject(call)
            return settled_line(record.name, subject, result_facts(view), indent=SUB_CALL_INDENT)
        parts = [result_body(view)]
        if call is not None:
            parts[:0] = [call_body(self._call_view(call)), Rule(style="dim")]
        status, colour = ("failed", "red") if failed else ("done", "green")
        panel = _panel(Group(*parts), record.name, record.call_id, status, colour)
        return Padding(panel, (0, 0, 0, SUB_CALL_INDENT))

    def _settled(self, record: ToolResultRecord, *, replayed: bool = False) -> RenderableType:
        """A settled call: a line, or (verbose, failed and run now) its completed card."""
        call = self._calls.get(record.call_id)
        name = "?" if call is None else call.name
        result = record.result
        view = self._result_view(call, result)
        code = None if result.error is None else result.error.info.code.value
        failed = failure(code, view)
        self._tally.settled(failed, replayed=replayed)
        if not self._verbose and (replayed or failed is None):  # a replay's failure: a line too
            facts = result_facts(view) if failed is None else f"{failed} · {result_facts(view)}"
            return settled_line(name, self._subject(call), facts, replayed=replayed)
        status = code or ("done" if failed is None else failed)
        colour = "green" if failed is None else "red"
        if replayed:  # one colour for every replay, whatever its result: it did not run now
            status, colour = f"replayed · {status}", "cyan"
        return _panel(result_body(view), name, record.call_id, status, colour)

    def _approval(self, record: ToolApprovalRecord) -> RenderableType:
        call = self._calls.get(record.call_id)
        reply = record.reply
        allowed = reply in ("allowed-once", "allowed-always")
        asked = f"{record.permission} {', '.join(record.patterns)}"
        said = record.reason not in (None, asked, *record.patterns)  # a reason that adds something
        return Text.assemble(
            ("approval ", "bold yellow"),
            visible(f"{'?' if call is None else call.name} · ", lines=False),
            f"{visible_id(record.call_id)}: ",
            visible(asked, lines=False),
            visible(f" ({record.reason})", lines=False) if said else "",
            " → ",
            (_reply_text(reply), "bold green" if allowed else "bold red"),
        )


def _panel(body: RenderableType, name: str, call_id: str, status: str, colour: str) -> Panel:
    return Panel(
        body,
        title=Text(f"{visible(name, lines=False)} · {visible_id(call_id)}"),
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
