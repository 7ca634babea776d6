"""Journaled batches: exactly-once across crashes, and approvals answered later, from anywhere.

A `JournaledSession` reads the journal again before each batch and each answer (another session
or process may have appended to it: a call it settled must not run again here, an ask it
answered must not be answered again) and keeps its recovery state current with every record it
appends. `execute` runs a batch the way `execute_batch` does, except that every record is
committed to the journal before the pipeline goes on, each call is first looked up in the
journal (see `_replay`), and asks go first to the answers the journal holds: an ask answered
"deferred" is journaled and its call settles as APPROVAL_PENDING. `answer` journals an answer to a
deferred ask (from this process or any other: `refresh` reads what others appended), and
`resume` answers, then runs the batch again: exactly the calls whose asks were answered run.

One session runs batches over a journal at a time (the CLI holds a lock for its run): reading
first narrows, but does not close, the window in which two running sessions could both take a
new call as theirs to run. Answers may come from anywhere at any time.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, final

from returns.result import Success

from toolfx.core.journal._journal import FollowedJournal
from toolfx.core.journal._recovery import Recovery, recover
from toolfx.core.journal._replay import JournalResumption, Outcome
from toolfx.core.pipeline import DEFAULT_PARALLEL_LIMIT, BatchResult, execute_batch
from toolfx.core.records import ToolApprovalRecord, ToolCallRecord, arguments_digest
from toolfx.core.registry import TRANSPORT_HANDLE
from toolfx.core.runtime import DelegatingRuntime, Description

if TYPE_CHECKING:
    from toolfx.core.journal._journal import Journal
    from toolfx.core.pipeline import ToolCall
    from toolfx.core.records import RecordSink, SessionRecord
    from toolfx.core.registry import Catalog
    from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal, Runtime
    from toolfx.core.tools import ToolExecutionResult

__all__ = ["JournalError", "JournaledBatch", "JournaledSession"]


class JournalError(ValueError):
    """A request the journal cannot take: an answer to no waiting ask, or a reply that is no
    answer."""


@final
@dataclass(frozen=True, slots=True)
class JournaledBatch:
    """A journaled batch: its results in order, how each call was dealt with, the open asks."""

    batch: BatchResult
    outcomes: tuple[Outcome, ...]
    """Per call, in order: new, replayed, resumed, rerun, in-doubt or conflict."""
    open_asks: tuple[ToolApprovalRecord, ...]
    """The deferred asks still waiting for an answer once the batch is done (whole journal)."""

    @property
    def results(self) -> tuple[ToolExecutionResult, ...]:
        """One result per call, in the model's order."""
        return self.batch.results


@final
class JournaledSession:
    """One process's journaled runs over `journal`; `echo` also receives every record appended."""

    __slots__ = ("_echo", "_journal", "_own", "_recovery", "_seen")

    def __init__(self, journal: Journal, *, echo: RecordSink | None = None) -> None:
        self._journal = journal
        self._echo = echo
        records = journal.records()
        self._recovery = recover(records)
        self._seen = len(records)  # the journal's records the recovery state was read from
        self._own: list[SessionRecord] = []  # appended (and noted) since

    @property
    def journal(self) -> Journal:
        """The journal every record goes to."""
        return self._journal

    @property
    def recovery(self) -> Recovery:
        """What the journal says about each call id, kept current."""
        return self._recovery

    def refresh(self) -> None:
        """Read the journal again (to see what other processes appended, answers among them).

        A `FollowedJournal` is asked only for the records after those read last: if they are
        exactly the ones this session appended since, the recovery state is current already;
        anything else (another session's records) and the whole journal is read again, in order.
        """
        journal = self._journal
        if isinstance(journal, FollowedJournal):
            new = journal.records_after(self._seen)
            if list(new) == self._own:
                self._seen += len(new)
                self._own.clear()
                return
        records = journal.records()
        self._recovery = recover(records)
        self._seen = len(records)
        self._own.clear()

    def open_asks(self) -> tuple[ToolApprovalRecord, ...]:
        """The deferred asks waiting for an answer, oldest first."""
        return self._recovery.open_asks()

    def answer(
        self, call_id: str, reply: ApprovalReply, *, ask: ToolApprovalRecord | None = None
    ) -> ToolApprovalRecord:
        """Journal `reply` to the deferred ask of `call_id` and give the record; `JournalError`
        if no ask of that call waits (the journal is read first), the reply is "deferred" or none
        the journal can keep and read back, or another session's answer reached the journal
        first (that one holds). `ask`, the ask as `open_asks` showed it to whoever answers:
        `JournalError` if the call's waiting ask is another one now (it asked again since), so
        an answer is never given to an ask nobody saw. (Not echoed: there is no run to report a
        failing echo to; `resume` echoes the answers it is given.)"""
        self.refresh()
        record = self._answer_to(call_id, reply, ask)
        self._commit(record)
        self.refresh()
        self._check_taken(record)
        return record

    def _commit(self, record: SessionRecord) -> None:
        """Append `record` to the journal and note it (the journal raises if it cannot keep it)."""
        self._journal.append(record)
        self._recovery.note(record)
        self._own.append(record)

    def _holds(self, call_id: str, reply: ApprovalReply) -> bool:
        """Whether `reply` is the answer the journal holds for the last ask of `call_id`."""
        ask = self._recovery.last_ask(call_id)
        answered = None if ask is None else self._recovery.answered(ask)
        return answered is not None and answered.reply == reply

    def _check_taken(self, record: ToolApprovalRecord) -> None:
        """`JournalError` if another answer to the same ask reached the journal first (it holds)."""
        taken = self._recovery.answered(record)
        if taken != record:
            reply = None if taken is None else taken.reply
            raise JournalError(
                f"the ask of call {record.call_id!r} was answered {reply!r} by another session"
                " first: that answer holds, this one was not taken"
            )

    def _answer_to(
        self, call_id: str, reply: ApprovalReply, seen: ToolApprovalRecord | None = None
    ) -> ToolApprovalRecord:
        """The record answering the deferred ask of `call_id` (see `answer`), not journaled."""
        if reply == "deferred":
            raise JournalError('"deferred" is no answer: the ask would still wait')
        waiting = {ask.call_id: ask for ask in self._recovery.open_asks()}
        ask = waiting.get(call_id)
        if ask is None:
            listed = ", ".join(waiting) or "none"
            raise JournalError(
                f"no ask of call {call_id!r} waits for an answer (waiting: {listed})"
            )
        if seen is not None and seen != ask:
            raise JournalError(
                f"the ask of call {call_id!r} waiting now is for {ask.permission} on"
                f" {', '.join(ask.patterns)}, not the one answered ({seen.permission} on"
                f" {', '.join(seen.patterns)}): it asked again since"
            )
        record = ToolApprovalRecord(
            ask.call_id, ask.permission, ask.patterns, ask.reason, reply, ask.always
        )
        try:  # a host's answer is input: what the journal keeps must read back as it was
            kept = ToolApprovalRecord.from_json(record.to_json()) == Success(record)
        except ValueError:  # not JSON at all
            kept = False
        if not kept:
            raise JournalError(
                f"{reply!r} is no approval reply (allowed-once, allowed-always, rejected,"
                " cancelled, unavailable, or a RejectedWithFeedback with a text)"
            )
        return record

    def execute(
        self,
        catalog: Catalog,
        calls: Sequence[ToolCall],
        limit: int | None = DEFAULT_PARALLEL_LIMIT,
    ) -> Description[JournaledBatch]:
        """The description of a journaled batch (see the module); inert until interpreted."""
        _check_limit(limit)
        frozen_calls = tuple(calls)

        async def program(runtime: Runtime) -> JournaledBatch:
            return await self._run(runtime, catalog, frozen_calls, limit)

        return Description(program)

    def resume(
        self,
        catalog: Catalog,
        calls: Sequence[ToolCall],
        answers: Mapping[str, ApprovalReply],
        limit: int | None = DEFAULT_PARALLEL_LIMIT,
    ) -> Description[JournaledBatch]:
        """Answer the deferred asks (`answers`: call id to reply), then run the batch again.

        All the answers or none: if one answers no waiting ask (`JournalError`), none is journaled
        and nothing runs. An answer the journal already holds for the call's last ask is not
        given again: a resume retried after a crash (its answers journaled, its batch not run)
        goes on.
        """
        _check_limit(limit)
        frozen_calls, given = tuple(calls), dict(answers)

        async def program(runtime: Runtime) -> JournaledBatch:
            self.refresh()
            to_give = {c: r for c, r in given.items() if not self._holds(c, r)}
            for record in [self._answer_to(call_id, reply) for call_id, reply in to_give.items()]:
                self._append(runtime, record)
            return await self._run(runtime, catalog, frozen_calls, limit)

        return Description(program)

    async def _run(
        self, runtime: Runtime, catalog: Catalog, calls: tuple[ToolCall, ...], limit: int | None
    ) -> JournaledBatch:
        self.refresh()  # what other sessions settled or answered since: never run a call twice
        sink = functools.partial(self._append, runtime)
        resumption = JournalResumption(self._recovery, sink)
        journaled = _JournaledApprovals(runtime, self._recovery, sink)
        results: list[ToolExecutionResult | None] = [None] * len(calls)
        outcomes: list[Outcome] = []
        to_run: list[int] = []
        direct = catalog.view.direct
        for index, call in enumerate(calls):
            registration = direct.get(call.name)
            idempotent = registration is not None and (
                registration.definition.options.idempotent
                or registration.handle == TRANSPORT_HANDLE  # its sub-calls are replayed
            )
            outcome, known = resumption.classify(journaled, call, idempotent=idempotent)
            outcomes.append(outcome)
            if known is None:
                to_run.append(index)
            else:
                results[index] = known
        running = [calls[index] for index in to_run]
        ran = await execute_batch(catalog, running, limit, sink, resumption=resumption).program(
            journaled
        )
        for index, result in zip(to_run, ran.results, strict=True):
            results[index] = result
        faults = (*ran.record_faults, *resumption.faults)
        batch = BatchResult(tuple(r for r in results if r is not None), faults)
        return JournaledBatch(batch, tuple(outcomes), self._recovery.open_asks())

    def _append(self, runtime: Runtime, record: SessionRecord) -> None:
        """Commit `record`, note it, then echo it (an echo that raises is only reported)."""
        if isinstance(record, ToolCallRecord) and record.arguments_hash is None:
            record = ToolCallRecord(
                record.call_id,
                record.root_call_id,
                record.name,
                record.arguments,
                record.agent,
                record.parent_call_id,
                arguments_digest(record.arguments),
            )
        self._commit(record)
        if self._echo is not None:
            try:
                self._echo(record)
            except Exception as error:  # committed already: the echo cannot undo or refuse it
                runtime.report(error, f"the journal's echo, showing the `{record.event}`")


def _check_limit(limit: int | None) -> None:
    """Refuse a parallel limit below one now, as `execute_batch` does, before any record."""
    if limit is not None and limit < 1:
        raise ValueError(f"the parallel limit must be at least 1, not {limit}")


@final
class _JournaledApprovals(DelegatingRuntime):
    """The run's runtime: an ask the journal holds an answer to gets it; any other goes to the
    inner runtime, and its reply is journaled before the call goes on."""

    __slots__ = ("_recovery", "_sink")

    def __init__(self, inner: Runtime, recovery: Recovery, sink: RecordSink) -> None:
        super().__init__(inner)
        self._recovery = recovery
        self._sink = sink

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """The journal's answer to this ask, else the inner runtime's reply, journaled."""
        answered = self._recovery.answer(request)
        if answered is not None:
            return answered
        reply = await self.inner.approve(request, signal)
        self._sink(ToolApprovalRecord.of(request, reply))  # raises if not kept: not approved
        return reply
