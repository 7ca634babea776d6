"""Recovery: what a journal's records say about each call id, as a pure fold over the records.

A call id is settled (a `tool/result`, or for a Code Mode sub-call a `tool/code-answer` and its
`tool/code-dispatch`), pending (settled as APPROVAL_PENDING: waiting for an answer), in doubt (a
`tool/call` and nothing after it: the body may have run) or new (never seen). A later `tool/call`
of the same id opens it again (a pending call resumed, an idempotent one run again). Deferred asks
are the `tool/approval` records whose reply is "deferred"; an answer is a later `tool/approval`
of the same call, permission and patterns with any other reply; the first answer after an ask is
its answer (a later one, from an approver that had not seen it, changes nothing: a rejection
cannot be overturned by an answer given concurrently).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, final

from toolfx.core.records import (
    ToolApprovalRecord,
    ToolCallRecord,
    ToolCodeAnswerRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
)
from toolfx.core.tools import DurableResult, ErrorCode, waiting_for

if TYPE_CHECKING:
    from toolfx.core.records import SessionRecord
    from toolfx.core.runtime import ApprovalReply, ApprovalRequest

__all__ = ["CallStatus", "InDoubt", "Pending", "Recovery", "Settled", "recover"]


@final
@dataclass(frozen=True, slots=True)
class Settled:
    """A call whose final result the journal holds: it is replayed, never run again."""

    call: ToolCallRecord
    result: DurableResult
    answer: ToolCodeAnswerRecord | None = None
    """What a Code Mode sub-call answered its program (None for a model's call)."""


@final
@dataclass(frozen=True, slots=True)
class Pending:
    """A call settled as APPROVAL_PENDING: it runs again once one of its asks is answered."""

    call: ToolCallRecord
    result: DurableResult
    waiting_for: tuple[str, ...]
    """The call ids whose deferred asks it waits on (its own, or its program's sub-calls')."""
    answer: ToolCodeAnswerRecord | None = None


@final
@dataclass(frozen=True, slots=True)
class InDoubt:
    """A call that started and never settled: its body may or may not have run."""

    call: ToolCallRecord


CallStatus = Settled | Pending | InDoubt
"""What the journal says about one call id it has seen."""


_AskKey = tuple[str, str, tuple[str, ...]]
"""An ask's identity: call id, permission and patterns."""


@final
class Recovery:
    """Each call id's status and the deferred asks with their answers, kept current by `note`."""

    __slots__ = ("_answers", "_asks", "_calls", "_code_answers", "_latest_ask", "_statuses")

    def __init__(self) -> None:
        self._statuses: dict[str, CallStatus] = {}
        self._calls: dict[str, ToolCallRecord] = {}
        self._code_answers: dict[str, ToolCodeAnswerRecord] = {}
        self._asks: dict[_AskKey, ToolApprovalRecord] = {}  # deferred, in order
        self._answers: dict[_AskKey, ToolApprovalRecord] = {}
        self._latest_ask: dict[str, _AskKey] = {}  # each call's last deferred ask

    def note(self, record: SessionRecord) -> None:
        """Take one more record, appended after every record noted before."""
        match record:
            case ToolCallRecord(call_id=call_id):
                self._calls[call_id] = record
                self._statuses[call_id] = InDoubt(record)
            case ToolResultRecord(call_id=call_id, result=result):
                self._settle(call_id, result, None)
            case ToolCodeAnswerRecord(call_id=call_id):
                self._code_answers[call_id] = record
            case ToolCodeDispatchRecord(call_id=call_id, content=content):
                answer = self._code_answers.pop(call_id, None)
                if answer is not None:  # without what the program got it cannot be replayed
                    self._settle(call_id, DurableResult(content, answer.error), answer)
            case ToolApprovalRecord():
                key = (record.call_id, record.permission, record.patterns)
                if record.reply == "deferred":
                    self._asks[key] = record
                    self._answers.pop(key, None)
                    self._latest_ask[record.call_id] = key
                elif key in self._asks and key not in self._answers:  # the first answer holds
                    self._answers[key] = record

    def _settle(
        self, call_id: str, result: DurableResult, answer: ToolCodeAnswerRecord | None
    ) -> None:
        call = self._calls.get(call_id)
        if call is None:  # a result for a call the journal never opened: nothing to replay
            return
        error = result.error
        if error is not None and error.info.code is ErrorCode.APPROVAL_PENDING:
            self._statuses[call_id] = Pending(call, result, waiting_for(error), answer)
        else:
            self._statuses[call_id] = Settled(call, result, answer)

    def status(self, call_id: str) -> CallStatus | None:
        """What the journal says about `call_id` (None: a new call)."""
        return self._statuses.get(call_id)

    def answer(self, request: ApprovalRequest) -> ApprovalReply | None:
        """The first answer given to this very ask (same call, permission and patterns) since it
        was deferred; `allowed-always` counts as once if the ask now offers other rules."""
        key = (request.call_id, request.permission, request.patterns)
        answered = self._answers.get(key)
        if answered is None:
            return None
        if answered.reply == "allowed-always" and self._asks[key].always != request.always:
            return "allowed-once"  # `always` remembers only the rules the person was shown
        return answered.reply

    def last_ask(self, call_id: str) -> ToolApprovalRecord | None:
        """The last ask of `call_id` that was deferred (None if none was)."""
        key = self._latest_ask.get(call_id)
        return None if key is None else self._asks[key]

    def answered(self, ask: ToolApprovalRecord) -> ToolApprovalRecord | None:
        """The answer that holds for `ask` (the first one journaled since it was deferred)."""
        return self._answers.get((ask.call_id, ask.permission, ask.patterns))

    def resumable(self, status: Pending) -> bool:
        """Whether the last ask of a call the pending call waits on has been answered since."""
        return any(self._latest_ask.get(call_id) in self._answers for call_id in status.waiting_for)

    def open_asks(self) -> tuple[ToolApprovalRecord, ...]:
        """The last deferred ask of each pending call (a sub-call's only while its program is
        pending too), when no answer has reached it yet."""
        return tuple(
            self._asks[key]
            for call_id, key in self._latest_ask.items()
            if key not in self._answers and self._waiting(call_id)
        )

    def _waiting(self, call_id: str) -> bool:
        status = self._statuses.get(call_id)
        if not isinstance(status, Pending):
            return False
        parent = status.call.parent_call_id
        return parent is None or isinstance(self._statuses.get(parent), Pending)

    def in_doubt(self) -> tuple[ToolCallRecord, ...]:
        """The calls that started and never settled, in the order they started."""
        return tuple(s.call for s in self._statuses.values() if isinstance(s, InDoubt))


def recover(records: Iterable[SessionRecord]) -> Recovery:
    """The recovery state of a journal's records, in their order."""
    recovery = Recovery()
    for record in records:
        recovery.note(record)
    return recovery
