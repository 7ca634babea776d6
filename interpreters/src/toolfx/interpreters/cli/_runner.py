"""Running a session: each turn is one batch through the pipeline (or, with a journal, through
the journaled session), under the chosen interpreter, and every record (turn marks, calls,
approvals, results) goes to one sink as it happens."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import anyio.to_thread

from toolfx.core.pipeline import ToolCall, execute_batch
from toolfx.core.providers import anthropic_messages, openai_chat
from toolfx.core.records import ToolApprovalRecord, ToolCallRecord, ToolResultRecord
from toolfx.core.registry import Catalog
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    CancelSignal,
    Description,
    ProgressReporter,
    RemoteRunner,
    Runtime,
    log_defect,
)
from toolfx.core.tools import ErrorCode, ToolExecutionResult, failed
from toolfx.interpreters._os.spills import AnyioFolderSpills, FolderSpills
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.cli._approvals import Answer
from toolfx.interpreters.cli._interrupts import Interrupts
from toolfx.interpreters.cli._journaled import JournaledTurns
from toolfx.interpreters.cli._log import Interpreter, LogRecord, TurnRecord
from toolfx.interpreters.cli._log_file import LogWriteError
from toolfx.interpreters.cli._session import ProviderTurn, Turn
from toolfx.interpreters.journal import JournalFileError
from toolfx.interpreters.sync import SyncRuntime, run_sync

__all__ = ["run_session", "turn_calls"]


def run_session(
    turns: Sequence[Turn],
    catalog: Catalog,
    interpreter: Interpreter,
    answer: Answer,
    sink: Callable[[LogRecord], None],
    *,
    spill_folder: str | None = None,
    progress: ProgressReporter | None = None,
    journaled: JournaledTurns | None = None,
    after_turn: Callable[[], None] | None = None,
    interrupts: Interrupts | None = None,
    remote: RemoteRunner | None = None,
) -> None:
    """Run the turns in order; asks go to `answer` and are recorded with their replies; the
    calls' progress goes to `progress`.

    Whole outputs cut for the model are kept in `spill_folder` (None: a private temporary one).
    With `journaled`, each turn runs through it (which records the asks with their replies).
    `after_turn` is called after each turn: what it raises ends the session there. With
    `interrupts`, each turn's calls share its signal, Ctrl-C at a prompt answers `cancelled`,
    and no turn starts once Ctrl-C was pressed. The bodies of the tools placed remotely run on
    `remote` (None: here).
    """
    if interrupts is not None:
        answer = interrupts.answering(answer)

    def recorded(request: ApprovalRequest, reply: ApprovalReply) -> ApprovalReply:
        sink(ToolApprovalRecord.of(request, reply))
        return reply

    def approve(request: ApprovalRequest) -> ApprovalReply:
        reply = answer(request)
        return reply if journaled is not None else recorded(request, reply)

    async def approve_in_thread(request: ApprovalRequest) -> ApprovalReply:
        try:  # a prompt no Ctrl-C reaches in its thread is left behind when the signal is set
            reply = await anyio.to_thread.run_sync(answer, request, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            if journaled is None:
                recorded(request, "cancelled")
            raise
        return reply if journaled is not None else recorded(request, reply)

    async def program(runtime: Runtime) -> None:
        for number, turn in enumerate(turns, start=1):
            if interrupts is not None and interrupts.interrupted:
                break
            made = turn_calls(turn, catalog, None if interrupts is None else interrupts.signal())
            sink(TurnRecord(number, len(made)))
            calls: list[ToolCall] = []
            for call in made:
                if call.arguments_error is None:
                    calls.append(call)
                else:
                    _refuse(call, sink)
            results: Sequence[ToolExecutionResult]
            if journaled is None:
                results = (await execute_batch(catalog, calls, sink=sink).program(runtime)).results
            else:
                results = await journaled.run(runtime, catalog, calls)
            if interrupts is not None:
                interrupts.settled(results)
            if after_turn is not None:
                after_turn()

    description = Description(program)
    if interpreter == "sync":
        kept = FolderSpills(spill_folder)
        sync_runtime = SyncRuntime(
            approvals=approve, on_defect=_report, spills=kept, progress=progress, remote=remote
        )
        run_sync(description, sync_runtime)
    else:
        folder = AnyioFolderSpills(spill_folder)
        runtime = AnyioRuntime(
            approvals=approve_in_thread,
            on_defect=_report,
            spills=folder,
            progress=progress,
            remote=remote,
        )
        run_anyio(description, interpreter, runtime)


def _report(error: BaseException, where: str) -> None:
    """Log a contained defect, but not a failed log's or journal's records: the command ends
    with that."""
    if not isinstance(error, LogWriteError | JournalFileError):
        log_defect(error, where)


def turn_calls(
    turn: Turn, catalog: Catalog, signal: CancelSignal | None = None
) -> tuple[ToolCall, ...]:
    """A turn's calls sharing `signal` (a new one if None); a provider's read by its wire format
    (which undoes OpenAI strict mode's nulls)."""
    if isinstance(turn, ProviderTurn):
        read = openai_chat.calls if turn.wire == "openai_chat" else anthropic_messages.calls
        return read(turn.message, catalog, signal)
    signal = CancelSignal() if signal is None else signal
    return tuple(ToolCall(call.call_id, call.name, call.arguments, signal) for call in turn)


def _refuse(call: ToolCall, sink: Callable[[LogRecord], None]) -> None:
    """Record a call whose argument text is not JSON, and its INVALID_ARGS failure, unrun."""
    text = call.arguments if isinstance(call.arguments, str) else None
    sink(ToolCallRecord(call.call_id, call.call_id, call.name, text))
    message = f"The arguments for `{call.name}` are not JSON: {call.arguments_error}"
    sink(ToolResultRecord.of(call.call_id, failed(ErrorCode.INVALID_ARGS, message)))
