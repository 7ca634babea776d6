"""A journaled run's decision for each call before it runs: replay, refuse, leave in doubt, or run.

- settled: its durable result is returned (a model's call gets no canonical value back; a Code
  Mode sub-call gets the value its program was answered with), without policy or body;
- pending (APPROVAL_PENDING): run again once one of its asks is answered, else replayed;
- in doubt: run again when idempotent (or a `run_code`, whose sub-calls are replayed in turn),
  else settled as IN_DOUBT, journaled, with a message telling the model it may have run;
- a call id the journal holds for another tool or other arguments (or twice in one batch): refused
  with CALL_ID_CONFLICT, and nothing is journaled for it (the journaled call stays as it was);
- new: run.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Final, Literal, final

from toolfx.core.journal._recovery import InDoubt, Pending, Settled
from toolfx.core.records import (
    RecordFault,
    ToolCodeAnswerRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
    arguments_digest,
    write_record,
)
from toolfx.core.tools import (
    ErrorCode,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    failed,
)

if TYPE_CHECKING:
    from toolfx.core.journal._recovery import Recovery
    from toolfx.core.pipeline import ToolCall
    from toolfx.core.records import RecordSink, SessionRecord, ToolCallRecord
    from toolfx.core.runtime import Runtime
    from toolfx.core.tools import ToolExecutionResult

__all__ = ["MAX_SHOWN_ARGUMENT_CHARS", "JournalResumption", "Outcome"]


MAX_SHOWN_ARGUMENT_CHARS: Final = 400


"""How much of an in-doubt call's arguments its failure message quotes."""


Outcome = Literal["new", "replayed", "resumed", "rerun", "in-doubt", "conflict"]


"""How a journaled run dealt with one call: run for the first time, replayed from the journal,
resumed after an answered ask, run again (idempotent, in doubt), settled as in doubt, refused."""


@final
class JournalResumption:
    """The pipeline's `Resumption` over a recovery state, writing through the journal's sink."""

    __slots__ = ("_recovery", "_sink", "faults", "outcomes")

    def __init__(self, recovery: Recovery, sink: RecordSink) -> None:
        self._recovery = recovery
        self._sink = sink
        self.outcomes: dict[str, Outcome] = {}
        """How each call id met so far was dealt with (sub-calls included)."""
        self.faults: list[RecordFault] = []
        """The records it wrote that the sink refused, in order (the batch's ledger never saw
        them)."""

    def settled(
        self, runtime: Runtime, call: ToolCall, *, idempotent: bool
    ) -> ToolExecutionResult | None:
        """The result `call` gets without running, or None to run it (see the module)."""
        return self.classify(runtime, call, idempotent=idempotent)[1]

    def classify(
        self, runtime: Runtime, call: ToolCall, *, idempotent: bool
    ) -> tuple[Outcome, ToolExecutionResult | None]:
        """How `call` is dealt with, and the result it gets without running (None: run it)."""
        if call.call_id in self.outcomes:  # a second call with this id in the same run
            return "conflict", _refused(call, "is used by another call of this run")
        status = self._recovery.status(call.call_id)
        outcome: Outcome
        result: ToolExecutionResult | None = None
        if status is None:
            outcome = "new"
        elif (
            status.call.name != call.name
            or status.call.parent_call_id != call.parent_call_id
            or _digest_of(status.call) != _call_digest(call)
        ):
            return "conflict", _refused(call, f"was used before for a call of `{status.call.name}`")
        else:
            match status:
                case Settled():
                    outcome, result = "replayed", _live(status)
                case Pending():
                    resumed = self._recovery.resumable(status)
                    outcome = "resumed" if resumed else "replayed"
                    result = None if resumed else _live(status)
                case InDoubt():
                    outcome = "rerun" if idempotent else "in-doubt"
                    result = None if idempotent else self._in_doubt(runtime, call)
        self.outcomes[call.call_id] = outcome
        return outcome, result

    def answered(self, runtime: Runtime, call_id: str, result: ToolExecutionResult) -> None:
        """Journal what a sub-call answered its program (before its `tool/code-dispatch`)."""
        self._write(runtime, ToolCodeAnswerRecord.of(call_id, result))

    def _write(self, runtime: Runtime, record: SessionRecord) -> None:
        error = write_record(runtime, self._sink, record)
        if error is not None:
            self.faults.append(RecordFault(record, error))

    def _in_doubt(self, runtime: Runtime, call: ToolCall) -> ToolExecutionResult:
        shown = json.dumps(_arguments(call), ensure_ascii=False)
        if len(shown) > MAX_SHOWN_ARGUMENT_CHARS:
            shown = shown[: MAX_SHOWN_ARGUMENT_CHARS - 3] + "..."
        result = failed(
            ErrorCode.IN_DOUBT,
            f"`{call.name}` may already have run: it started before the agent stopped, and its"
            " result was lost. It was not run again. Check whether it took effect (the files it"
            " writes, the commands' effects) before calling it again. Its arguments were: " + shown,
        )
        if call.parent_call_id is None:
            self._write(runtime, ToolResultRecord.of(call.call_id, result))
        else:
            self.answered(runtime, call.call_id, result)
            dispatch = ToolCodeDispatchRecord(
                call.call_id, call.parent_call_id, call.name, True, result.content
            )
            self._write(runtime, dispatch)
        return result


def _refused(call: ToolCall, why: str) -> ToolExecutionResult:
    return failed(
        ErrorCode.CALL_ID_CONFLICT,
        f"The call id {json.dumps(call.call_id)} {why}: this call of `{call.name}` was not run."
        " Give each call an id of its own.",
    )


def _arguments(call: ToolCall) -> object:
    return None if call.arguments_error is not None else call.arguments


def _call_digest(call: ToolCall) -> str:
    return arguments_digest(_arguments(call))  # type: ignore[arg-type]  # JSON once snapshotted


def _digest_of(record: ToolCallRecord) -> str:
    return record.arguments_hash or arguments_digest(record.arguments)


def _live(status: Settled | Pending) -> ToolExecutionResult:
    """The result a journaled one stands for: the answered value for a sub-call, else none."""
    durable, answer = status.result, status.answer
    if durable.error is not None:
        return ToolExecutionFailure(durable.error, durable.content, durable.meta)
    value = None if answer is None else answer.value
    return ToolExecutionSuccess(value, durable.content, durable.meta)
