"""A session's turns over a journal: each turn one `JournaledSession` batch, shown as it happens.

Every record is committed to the journal first, then goes to the session's recorder (the display
and the log). What the journal decides without running a call is shown too: a call it had
settled is shown as replayed; a call an earlier run left in doubt is shown as the journal's
`tool/call` followed by its IN_DOUBT result; a call id the journal holds for another call is
shown refused (CALL_ID_CONFLICT). A call that runs again once its deferred ask was answered (by
`toolfx approve`) is shown with that answer after its `tool/call`. Each of these but the replays
is also told in a note (stderr), as is an idempotent in-doubt call run again.

Call ids are shown by `visible_id` (no two look the same), and in a command to copy quoted for
the shell with every byte outside printable ASCII escaped (`$'c1\342\200\215'`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from toolfx.core.journal import JournaledSession, Pending, Settled
from toolfx.core.records import ToolApprovalRecord, ToolCallRecord, ToolResultRecord
from toolfx.interpreters.cli._log import LogRecord, ReplayedRecord
from toolfx.interpreters.cli._visible import visible_id

if TYPE_CHECKING:
    from toolfx.core.journal import Journal, Outcome
    from toolfx.core.pipeline import ToolCall
    from toolfx.core.records import SessionRecord
    from toolfx.core.registry import Catalog
    from toolfx.core.runtime import Runtime
    from toolfx.core.tools import ToolExecutionResult

__all__ = [
    "JournalWriteError",
    "JournaledTurns",
    "WaitingAsk",
    "repeated_call_ids",
    "waiting_asks",
    "waiting_lines",
]

_PLAIN_WORD: Final = re.compile(r"[\x20-\x5b\x5d-\x7e]*")
"""A word `shlex` quotes so that it shows as it is: printable ASCII, no backslash."""
_NOT_PLAIN: Final = re.compile(rb"[^\x20-\x26\x28-\x5b\x5d-\x7e]")
"""A byte written as an octal escape in a `$'...'` word: outside printable ASCII, `'` or `\\`."""


class JournalWriteError(Exception):
    """The journal could not take a record: the session stops after the turn that failed."""


@final
class JournaledTurns:
    """Runs a session's turns over `journal`, giving every record to `record` once committed
    and telling `note` what the journal decided without running."""

    __slots__ = ("_note", "_record", "_session", "_shown")

    def __init__(
        self,
        journal: Journal,
        record: Callable[[LogRecord], None],
        note: Callable[[str], None],
    ) -> None:
        self._record = record
        self._note = note
        self._shown: set[str] = set()  # the calls whose `tool/call` this run has shown
        self._session = JournaledSession(journal, echo=self._echo)

    def waiting(self) -> tuple[WaitingAsk, ...]:
        """The deferred asks waiting for an answer, oldest first."""
        return waiting_asks(self._session)

    async def run(
        self, runtime: Runtime, catalog: Catalog, calls: Sequence[ToolCall]
    ) -> Sequence[ToolExecutionResult]:
        """One turn's calls as a journaled batch, their results in order; `JournalWriteError` if
        a record was lost."""
        done = await self._session.execute(catalog, calls).program(runtime)
        for call, outcome, result in zip(calls, done.outcomes, done.results, strict=True):
            self._show(call, outcome, result)
        faults = done.batch.record_faults
        if faults:
            fault = faults[0]
            raise JournalWriteError(
                f"cannot write the journal: {fault.error} (the `{fault.record.event}` of"
                f" '{visible_id(fault.record.call_id)}'; the session stops after this turn)"
            )
        return done.results

    def _echo(self, record: SessionRecord) -> None:
        """A committed record to the recorder, after the journal's `tool/call` of a call that
        started in an earlier run (an in-doubt call settled now)."""
        if isinstance(record, ToolCallRecord):
            first = record.call_id not in self._shown
            self._shown.add(record.call_id)
            self._record(record)
            answer = self._answer_of(record.call_id) if first else None
            if answer is not None:  # the answer that lets it run, given before this run
                self._record(answer)
            return
        if record.call_id not in self._shown:
            status = self._session.recovery.status(record.call_id)
            if status is not None:
                self._shown.add(record.call_id)
                self._record(status.call)
        self._record(record)

    def _answer_of(self, call_id: str) -> ToolApprovalRecord | None:
        """The answer that holds for the last deferred ask of `call_id`, if it has one."""
        recovery = self._session.recovery
        ask = recovery.last_ask(call_id)
        return None if ask is None else recovery.answered(ask)

    def _show(self, call: ToolCall, outcome: Outcome, result: ToolExecutionResult) -> None:
        """Show what the batch did not record itself, and note what the journal decided."""
        named = f"call {visible_id(call.call_id)} ({call.name})"
        status = self._session.recovery.status(call.call_id)
        match outcome:
            case "replayed" if isinstance(status, Settled | Pending):
                durable = ToolResultRecord(call.call_id, status.result)
                self._record(ReplayedRecord(status.call, durable))
            case "conflict":
                self._record(call.record(None))
                self._record(ToolResultRecord.of(call.call_id, result))
                earlier = "" if status is None else f" (of `{status.call.name}`)"
                self._note(
                    f"{named} was not run: the journal holds its id for another call{earlier}"
                    " (CALL_ID_CONFLICT); give each call an id of its own"
                )
            case "in-doubt":
                self._note(
                    f"{named} may already have run: it started in an earlier run that stopped"
                    " before it settled; it was not run again, and the model is told so"
                    " (IN_DOUBT)"
                )
            case "rerun":
                self._note(f"{named} was in doubt and ran again (its tool is idempotent)")
            case "resumed":
                self._note(f"{named} resumed: its ask was answered")
            case _:  # new: its records were shown as they came
                return


def repeated_call_ids(turns: Sequence[Sequence[str]]) -> dict[str, tuple[int, ...]]:
    """The call ids used in more than one turn (each turn its calls' ids), with the turns' numbers
    (from 1): a journal knows a call by its id, so a session it records uses each once."""
    turns_of: dict[str, list[int]] = {}
    for number, ids in enumerate(turns, start=1):
        for call_id in dict.fromkeys(ids):
            turns_of.setdefault(call_id, []).append(number)
    return {call_id: tuple(numbers) for call_id, numbers in turns_of.items() if len(numbers) > 1}


@final
@dataclass(frozen=True, slots=True)
class WaitingAsk:
    """A deferred ask waiting in a journal: the ask and the tool of the call that made it."""

    ask: ToolApprovalRecord
    tool: str


def waiting_asks(session: JournaledSession) -> tuple[WaitingAsk, ...]:
    """The session's journal's deferred asks waiting for an answer, oldest first."""
    found: list[WaitingAsk] = []
    for ask in session.open_asks():
        status = session.recovery.status(ask.call_id)
        found.append(WaitingAsk(ask, "?" if status is None else status.call.name))
    return tuple(found)


def waiting_lines(asks: Sequence[WaitingAsk], journal: str) -> list[str]:
    """What a person reads to answer the asks: each ask, then the command that answers it."""
    lines: list[str] = []
    for waiting in asks:
        ask = waiting.ask
        why = "" if ask.reason is None else f" (why: {ask.reason})"
        lines.append(
            f"  {visible_id(ask.call_id)} · {waiting.tool} asks for {ask.permission}"
            f" on: {', '.join(ask.patterns)}{why}"
        )
        command = f"{shlex.join(('toolfx', 'approve', journal))} {_shell_word(ask.call_id)} once"
        if ask.always:
            lines.append(f"    always allows from now on: {', '.join(ask.always)}")
            lines.append(f"    {command}   # or always, or reject [--feedback TEXT]")
        else:
            lines.append(f"    {command}   # or reject [--feedback TEXT]")
    return lines


def _shell_word(text: str) -> str:
    """`text` as one shell word: quoted as `shlex` does when it is printable ASCII without a
    backslash (which `visible` may double), else a `$'...'` word with every other byte of its
    UTF-8 an octal escape; either way it shows as it is, and no two texts share one."""
    if _PLAIN_WORD.fullmatch(text):
        return shlex.quote(text)
    try:  # a byte argv could not decode comes back as that byte
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no argv gives: any bytes, no crash
        data = text.encode("utf-8", "surrogatepass")
    return "$'" + _NOT_PLAIN.sub(lambda byte: b"\\%03o" % byte.group()[0], data).decode() + "'"
