"""The session log: JSONL of a `session` header, then `turn` marks and the tool records
(`tool/call`, `tool/approval`, `tool/result`, `tool/code-dispatch`) in the order they happened.

The header names the workspace root, the interpreter and how the tools were presented (`native`
when a log written before the presentation was recorded leaves it out), so a replay rebuilds the
same tool definitions (and runs nothing); each `turn` mark gives the turn's number and how many
calls it has. The tool records are core's durable records, in their own wire form, a Code Mode
program's calls among them (`tool/call` with a `parentCallId`, then `tool/code-dispatch`). A run
that continues a journal adds a `replayed` line for each call the journal had settled: the
journal's `tool/call` and the result the model gets again, nothing run.

A process ended at once (a second Ctrl-C) can leave the last line cut short: no newline at its
end and not JSON (nor, where it was cut inside a character, UTF-8). A reader may keep what comes
before it (`read_log`'s `cut`); a bad line anywhere else is an error naming it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Literal, TypeVar, final

from returns.result import Failure, Result

from toolfx.core.json import FrozenJson, parse_json
from toolfx.core.records import (
    Invalid,
    RecordError,
    SessionRecord,
    ToolCallRecord,
    ToolResultRecord,
    as_int,
    as_str,
    decoding,
    field,
    freeze,
    read_object,
    read_tag,
    record_from_json,
)
from toolfx.core.registry import PresentationMode
from toolfx.interpreters.cli._log_file import LogFile
from toolfx.interpreters.cli._providers import PRESENTATIONS
from toolfx.interpreters.cli._visible import visible_id

__all__ = [
    "INTERPRETERS",
    "Interpreter",
    "LogError",
    "LogRecord",
    "Recorder",
    "ReplayedRecord",
    "SessionHeader",
    "TurnRecord",
    "log_line",
    "log_text",
    "read_log",
]

_T = TypeVar("_T")

Interpreter = Literal["sync", "asyncio", "trio"]
"""Which interpreter runs a session's turns."""

INTERPRETERS: Final[Mapping[str, Interpreter]] = {
    "sync": "sync",
    "asyncio": "asyncio",
    "trio": "trio",
}
"""Every interpreter by its name."""


@final
@dataclass(frozen=True, slots=True)
class SessionHeader:
    """The log's first line: the workspace root the session ran in, its interpreter, and how its
    tools were presented to the model."""

    workspace: str
    interpreter: Interpreter
    present: PresentationMode = "native"

    def to_json(self) -> FrozenJson:
        """The wire form: event `session`, workspace, interpreter and present."""
        return freeze(
            {
                "event": "session",
                "workspace": self.workspace,
                "interpreter": self.interpreter,
                "present": self.present,
            }
        )


@final
@dataclass(frozen=True, slots=True)
class TurnRecord:
    """A model turn begins: its number (from 1) and how many calls it makes."""

    turn: int
    calls: int

    def to_json(self) -> FrozenJson:
        """The wire form: event `turn`, turn and calls."""
        return freeze({"event": "turn", "turn": self.turn, "calls": self.calls})


@final
@dataclass(frozen=True, slots=True)
class ReplayedRecord:
    """A call the journal had settled before this run: its `tool/call` and the result the model
    gets again (nothing runs)."""

    call: ToolCallRecord
    result: ToolResultRecord

    def to_json(self) -> FrozenJson:
        """The wire form: event `replayed`, the call and the result records."""
        return freeze(
            {"event": "replayed", "call": self.call.to_json(), "result": self.result.to_json()}
        )


LogRecord = SessionHeader | TurnRecord | ReplayedRecord | SessionRecord
"""One line of a session log."""


class LogError(ValueError):
    """A log that cannot be replayed: the line (from 1) and what is wrong there."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")


def log_line(record: LogRecord) -> str:
    """A record as one line of JSON (no newline)."""
    return json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":"))


def log_text(data: bytes) -> str:
    """A log's text: its whole lines UTF-8 (else `UnicodeDecodeError`), a last line without a
    newline, which may have been cut inside a character, decoded with replacements."""
    whole, newline, rest = data.rpartition(b"\n")
    return (whole + newline).decode("utf-8") + rest.decode("utf-8", "replace")


def read_log(
    text: str, cut: Callable[[int], object] | None = None
) -> tuple[SessionHeader, tuple[LogRecord, ...]]:
    """The header and the records after it of a log's text; a bad line raises `LogError`. With
    `cut`, a last line cut short (after the header, no newline at its end, not JSON) is left out
    and its number given to `cut`."""
    numbered = text.split("\n")  # only newlines end records, not U+2028 in them
    lines = [(number, line) for number, line in enumerate(numbered, 1) if line.strip()]
    unended = len(lines) > 1 and lines[-1][0] == len(numbered)  # no newline after the last
    if cut is not None and unended and isinstance(parse_json(lines[-1][1]), Failure):
        cut(lines.pop()[0])
    if not lines:
        raise LogError(1, "the log is empty; it starts with a `session` header")
    header = _read_line(*lines[0], first=True)
    if not isinstance(header, SessionHeader):
        raise LogError(lines[0][0], "the log starts with a `session` header")
    return header, tuple(_read_line(number, line, first=False) for number, line in lines[1:])


def _read_line(number: int, line: str, *, first: bool) -> LogRecord:
    parsed = parse_json(line)
    if isinstance(parsed, Failure):
        raise LogError(number, f"not JSON: {parsed.failure()}")
    value = parsed.unwrap()
    event = value.get("event") if isinstance(value, dict) else None
    read: Result[LogRecord, RecordError]
    if first:
        read = decoding(_header, value)
    elif event == "turn":
        read = decoding(_turn, value)
    elif event == "replayed":
        read = decoding(_replayed, value)
    else:
        read = record_from_json(value)
    if isinstance(read, Failure):
        raise LogError(number, str(read.failure()))
    return read.unwrap()


def _header(value: object) -> SessionHeader:
    read_tag(value, "event", ("session",), "first event")
    obj = read_object(value, ("event", "workspace", "interpreter"), ("present",))
    interpreter = INTERPRETERS[read_tag(obj, "interpreter", INTERPRETERS, "interpreter")]
    present: PresentationMode = "native"
    if "present" in obj:
        present = PRESENTATIONS[read_tag(obj, "present", PRESENTATIONS, "presentation")]
    return SessionHeader(field(obj, "workspace", as_str), interpreter, present)


def _turn(value: object) -> TurnRecord:
    read_tag(value, "event", ("turn",), "event")
    obj = read_object(value, ("event", "turn", "calls"))
    return TurnRecord(field(obj, "turn", as_int), field(obj, "calls", as_int))


def _replayed(value: object) -> ReplayedRecord:
    read_tag(value, "event", ("replayed",), "event")
    obj = read_object(value, ("event", "call", "result"))
    call = field(obj, "call", lambda item: _inner(ToolCallRecord.from_json(item)))
    result = field(obj, "result", lambda item: _inner(ToolResultRecord.from_json(item)))
    if call.call_id != result.call_id:
        where: list[str | int] = ["callId", "result"]
        shown = f"'{visible_id(result.call_id)}', not '{visible_id(call.call_id)}'"
        raise Invalid(f"the result is of call {shown}", where)
    return ReplayedRecord(call, result)


def _inner(read: Result[_T, RecordError]) -> _T:
    """A nested record's value, or its error located under where it is nested."""
    if isinstance(read, Failure):
        error = read.failure()
        raise Invalid(error.reason, tail=error.path)
    return read.unwrap()


@final
class Recorder:
    """The sink of a session: appends each record to the log (if any), then shows it.

    Once the log has failed, every record raises its `LogWriteError` and is not shown: the
    pipeline runs no call it cannot record, and the command ends with the log's error.
    """

    __slots__ = ("_log", "_show")

    def __init__(self, show: Callable[[LogRecord], None], log: LogFile | None = None) -> None:
        self._show = show
        self._log = log

    def __call__(self, record: LogRecord) -> None:
        """Write `record` as a whole line of the log, then show it."""
        if self._log is not None:
            self._log.append(log_line(record))
        self._show(record)
