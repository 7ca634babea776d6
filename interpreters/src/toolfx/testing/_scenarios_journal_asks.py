"""Deferred approvals in journaled batches, the same under every interpreter.

An ask answered "deferred" is journaled (`tool/approval` with that reply) and its call settles as
APPROVAL_PENDING, waiting for its own id; `answer` journals the answer (from any process); a
resumed batch runs exactly the calls whose asks were answered, with the journal's answer and
without asking again, and replays everything else.
"""

from __future__ import annotations

import re
from typing import Any, final

import pytest

from toolfx.core.journal import JournaledSession, JournalError
from toolfx.core.pipeline import ToolCall
from toolfx.core.records import SessionRecord, ToolApprovalRecord, ToolCallRecord
from toolfx.core.runtime import ApprovalReply, RejectedWithFeedback
from toolfx.core.tools import ErrorCode, ToolExecutionFailure, ToolExecutionSuccess
from toolfx.testing._scenarios_journal import JournaledWorld, JournalWorld, ListJournal, calls_of
from toolfx.testing._scenarios_pipeline import code_of

__all__ = ["JournalAskScenarios"]

NOT_TEXT: Any = 3
"""Feedback a host might hand over that is not text."""


def deferred(journaled: JournalWorld, *texts: str) -> None:
    """Run one `shout` per text (ids c1, c2, ...), every ask answered "deferred"."""
    ids = [f"c{n}" for n in range(1, len(texts) + 1)]
    journaled.asking.update(ids)
    journaled.world.approvals.extend(["deferred"] * len(texts))
    batch = journaled.run(loud(*texts))
    assert [code_of(result) for result in batch.results] == [ErrorCode.APPROVAL_PENDING] * len(ids)


@final
class RacingJournal:
    """`journal` seen by a session that another approver beats: `first` is appended (once) just
    before this session's next record."""

    __slots__ = ("_journal", "first")

    def __init__(self, journal: ListJournal) -> None:
        self._journal = journal
        self.first: SessionRecord | None = None

    def append(self, record: SessionRecord) -> None:
        """Append `first` (once), then `record`."""
        if self.first is not None:
            self._journal.append(self.first)
            self.first = None
        self._journal.append(record)

    def records(self) -> tuple[SessionRecord, ...]:
        """The shared journal's records."""
        return self._journal.records()


def loud(*texts: str) -> list[ToolCall]:
    """One `shout` call per text, ids c1, c2, ..."""
    return calls_of(*((f"c{n}", "shout", {"text": t}) for n, t in enumerate(texts, start=1)))


class JournalAskScenarios(JournaledWorld):
    """Deferred asks: pending results, the journal's open asks, answers and resumed batches."""

    def test_a_deferred_ask_settles_its_call_as_approval_pending(
        self, journaled: JournalWorld
    ) -> None:
        journaled.asking.add("c1")
        journaled.world.approvals.append("deferred")
        batch = journaled.run(loud("a"))
        [result] = batch.results
        assert batch.outcomes == ("new",)
        assert code_of(result) is ErrorCode.APPROVAL_PENDING
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.info.details == {"waitingFor": ["c1"]}
        assert "`shout` is waiting for approval (it is loud)" in result.error.message
        assert journaled.bodies == []
        assert journaled.events("c1") == ["tool/call", "tool/approval", "tool/result"]
        [ask] = batch.open_asks
        assert (ask.call_id, ask.reply, ask.reason) == ("c1", "deferred", "it is loud")
        assert journaled.journal.records()[1] == ask
        assert journaled.session().open_asks() == (ask,)  # another process sees it too

    def test_an_unanswered_pending_call_is_replayed_and_not_asked_again(
        self, journaled: JournalWorld
    ) -> None:
        deferred(journaled, "a")
        first = journaled.journal.records()
        again = journaled.run(loud("a"))
        assert again.outcomes == ("replayed",)
        assert code_of(again.results[0]) is ErrorCode.APPROVAL_PENDING
        assert len(journaled.world.asked) == 1
        assert journaled.reached_policy == ["c1"]
        assert journaled.journal.records() == first

    @pytest.mark.parametrize(
        ("call_id", "reply", "why"),
        [
            ("c9", "allowed-once", "no ask of call 'c9' waits for an answer (waiting: c1)"),
            ("c1", "deferred", '"deferred" is no answer'),
        ],
        ids=["unknown-call", "deferred-is-no-answer"],
    )
    def test_an_answer_to_no_waiting_ask_is_refused(
        self, journaled: JournalWorld, call_id: str, reply: ApprovalReply, why: str
    ) -> None:
        deferred(journaled, "a")
        kept = journaled.journal.records()
        with pytest.raises(JournalError, match=re.escape(why)):
            journaled.session().answer(call_id, reply)
        assert journaled.journal.records() == kept

    @pytest.mark.parametrize(
        "reply",
        ["maybe", RejectedWithFeedback(NOT_TEXT)],
        ids=["unknown-reply", "feedback-not-text"],
    )
    def test_an_answer_the_journal_could_not_read_back_is_refused(
        self, journaled: JournalWorld, reply: Any
    ) -> None:
        deferred(journaled, "a")
        kept = journaled.journal.records()
        with pytest.raises(JournalError, match="is no approval reply"):
            journaled.session().answer("c1", reply)
        assert journaled.journal.records() == kept
        assert [ask.call_id for ask in journaled.session().open_asks()] == ["c1"]

    def test_an_ask_is_answered_once(self, journaled: JournalWorld) -> None:
        deferred(journaled, "a")
        session = journaled.session()
        record = session.answer("c1", "allowed-once")
        assert (record.call_id, record.reply, record.reason) == ("c1", "allowed-once", "it is loud")
        assert session.open_asks() == ()
        kept = journaled.journal.records()
        for answering in (session, journaled.session()):
            with pytest.raises(JournalError, match="waiting: none"):
                answering.answer("c1", "rejected")
        assert journaled.journal.records() == kept

    def test_a_settled_call_has_no_ask_to_answer(self, journaled: JournalWorld) -> None:
        journaled.run(loud("a"))
        with pytest.raises(JournalError, match="no ask of call 'c1'"):
            journaled.session().answer("c1", "allowed-once")

    def test_resume_runs_exactly_the_answered_calls(self, journaled: JournalWorld) -> None:
        deferred(journaled, "a", "b")
        assert [ask.call_id for ask in journaled.session().open_asks()] == ["c1", "c2"]
        calls = [*loud("a", "b"), *calls_of(("c3", "look", {"text": "c"}))]
        journaled.run(calls[2:])  # a later call, settled before the answer
        resumed = journaled.interpret()(
            journaled.session().resume(journaled.catalog, calls, {"c1": "allowed-once"})
        )
        assert resumed.outcomes == ("resumed", "replayed", "replayed")
        assert journaled.bodies == ["look:c", "shout:a"]
        assert isinstance(resumed.results[0], ToolExecutionSuccess)
        assert code_of(resumed.results[1]) is ErrorCode.APPROVAL_PENDING
        assert [ask.call_id for ask in resumed.open_asks] == ["c2"]
        assert len(journaled.world.asked) == 2  # the answered ask took the journal's answer
        assert journaled.events("c1") == [
            "tool/call",
            "tool/approval",
            "tool/result",
            "tool/approval",
            "tool/call",
            "tool/result",
        ]
        resumed = journaled.interpret()(
            journaled.session().resume(journaled.catalog, calls, {"c2": "allowed-once"})
        )
        assert resumed.outcomes == ("replayed", "resumed", "replayed")
        assert journaled.bodies == ["look:c", "shout:a", "shout:b"]
        assert resumed.open_asks == ()
        final = journaled.run(calls)
        assert final.outcomes == ("replayed", "replayed", "replayed")
        assert journaled.bodies == ["look:c", "shout:a", "shout:b"]

    def test_an_answer_from_another_process_is_seen_by_the_next_batch(
        self, journaled: JournalWorld
    ) -> None:
        deferred(journaled, "a")
        waiting = journaled.session()
        journaled.session().answer("c1", "allowed-once")  # another process
        assert [ask.call_id for ask in waiting.open_asks()] == ["c1"]  # not read yet
        assert journaled.run(loud("a"), waiting).outcomes == ("resumed",)  # read before the batch
        assert waiting.open_asks() == ()
        assert journaled.run(loud("a"), waiting).outcomes == ("replayed",)
        assert journaled.bodies == ["shout:a"]

    @pytest.mark.parametrize("first", ["rejected", "allowed-once"])
    def test_an_ask_answered_by_two_sessions_takes_the_first_answer(
        self, journaled: JournalWorld, first: ApprovalReply
    ) -> None:
        # two approvers that both saw the ask waiting: the second answer is refused, not taken,
        # so a rejection cannot be overturned (nor an approval withdrawn) by a stale approver
        deferred(journaled, "a")
        one, other = journaled.session(), journaled.session()
        one.answer("c1", first)
        later: ApprovalReply = "allowed-once" if first == "rejected" else "rejected"
        with pytest.raises(JournalError, match="waiting: none"):
            other.answer("c1", later)
        kept = journaled.journal.records()
        with pytest.raises(JournalError, match="waiting: none"):
            journaled.interpret()(other.resume(journaled.catalog, loud("a"), {"c1": later}))
        assert journaled.journal.records() == kept
        resumed = journaled.run(loud("a"))
        assert resumed.outcomes == ("resumed",)
        if first == "allowed-once":
            assert isinstance(resumed.results[0], ToolExecutionSuccess)
            assert journaled.bodies == ["shout:a"]
        else:
            assert code_of(resumed.results[0]) is ErrorCode.DENIED
            assert journaled.bodies == []

    def test_a_resume_retried_after_a_crash_goes_on_and_runs_the_call_once(
        self, journaled: JournalWorld
    ) -> None:
        # the host's resume journaled its answer, then the process died before the batch ran;
        # the host retries the same resume: the answer is not given twice, the call runs, once
        deferred(journaled, "a")
        journaled.session().answer("c1", "allowed-once")  # the first attempt, cut short
        kept = journaled.journal.records()
        retry = journaled.session().resume(journaled.catalog, loud("a"), {"c1": "allowed-once"})
        resumed = journaled.interpret()(retry)
        assert resumed.outcomes == ("resumed",)
        assert journaled.journal.records()[: len(kept)] == kept
        assert journaled.events("c1")[-2:] == ["tool/call", "tool/result"]
        again = journaled.session().resume(journaled.catalog, loud("a"), {"c1": "allowed-once"})
        assert journaled.interpret()(again).outcomes == ("replayed",)  # retried once more
        assert journaled.bodies == ["shout:a"]
        with pytest.raises(JournalError, match="no ask of call 'c1'"):  # another answer
            journaled.interpret()(
                journaled.session().resume(journaled.catalog, loud("a"), {"c1": "rejected"})
            )
        assert journaled.bodies == ["shout:a"]

    def test_an_answer_to_an_ask_shown_earlier_is_refused_once_the_call_asked_again(
        self, journaled: JournalWorld
    ) -> None:
        # the approver saw the first ask; meanwhile the call was answered by someone else, ran
        # and asked again: an answer naming the ask it meant cannot approve the new one
        deferred(journaled, "a")
        [shown] = journaled.session().open_asks()
        assert journaled.session().answer("c1", "allowed-once", ask=shown).reply == "allowed-once"
        deferred_again = ToolApprovalRecord(
            "c1", shown.permission, ("other",), "it is louder", "deferred"
        )
        journaled.journal.append(deferred_again)  # the call's next ask, deferred
        kept = journaled.journal.records()
        with pytest.raises(JournalError, match=r"waiting now is for .* on other, not the one"):
            journaled.session().answer("c1", "allowed-always", ask=shown)
        assert journaled.journal.records() == kept
        assert journaled.session().answer("c1", "rejected", ask=deferred_again).reply == "rejected"

    def test_an_answer_that_loses_a_race_is_refused_and_changes_nothing(
        self, journaled: JournalWorld
    ) -> None:
        # both approvers read the ask as waiting; the other one's answer is committed between
        # this one's reading and its append: the first answer in the journal holds
        deferred(journaled, "a")
        racing = RacingJournal(journaled.journal)
        answering = JournaledSession(racing)
        [ask] = answering.open_asks()
        racing.first = ToolApprovalRecord(
            ask.call_id, ask.permission, ask.patterns, ask.reason, "rejected"
        )
        with pytest.raises(JournalError, match="answered 'rejected' by another session first"):
            answering.answer("c1", "allowed-once")
        resumed = journaled.run(loud("a"))
        assert code_of(resumed.results[0]) is ErrorCode.DENIED
        assert journaled.bodies == []

    @pytest.mark.parametrize(
        ("reply", "said"),
        [
            ("rejected", "Denied: approval needed (it is loud); the answer was rejected"),
            (RejectedWithFeedback("whisper it"), "Denied (it is loud); the user said: whisper it"),
        ],
        ids=["rejected", "feedback"],
    )
    def test_a_rejecting_answer_settles_the_call_denied(
        self, journaled: JournalWorld, reply: ApprovalReply, said: str
    ) -> None:
        deferred(journaled, "a")
        resumed = journaled.interpret()(
            journaled.session().resume(journaled.catalog, loud("a"), {"c1": reply})
        )
        assert resumed.outcomes == ("resumed",)
        [result] = resumed.results
        assert code_of(result) is ErrorCode.DENIED
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.message == said
        assert journaled.bodies == []
        assert resumed.open_asks == ()
        [answer] = [
            r
            for r in journaled.journal.records()
            if isinstance(r, ToolApprovalRecord) and r.reply != "deferred"
        ]
        assert answer.reply == reply
        assert journaled.run(loud("a")).results == resumed.results

    def test_the_answer_is_journaled_before_the_resumed_call(self, journaled: JournalWorld) -> None:
        deferred(journaled, "a")
        journaled.interpret()(
            journaled.session().resume(journaled.catalog, loud("a"), {"c1": "allowed-once"})
        )
        records = journaled.journal.records()
        answered = next(
            n
            for n, r in enumerate(records)
            if isinstance(r, ToolApprovalRecord) and r.reply == "allowed-once"
        )
        calls = [n for n, r in enumerate(records) if isinstance(r, ToolCallRecord)]
        assert calls[0] < answered < calls[1]

    def test_a_resume_with_an_answer_to_no_waiting_ask_answers_nothing(
        self, journaled: JournalWorld
    ) -> None:
        deferred(journaled, "a", "b")
        kept = journaled.journal.records()
        answers: dict[str, ApprovalReply] = {"c1": "allowed-once", "c9": "allowed-once"}
        with pytest.raises(JournalError, match="no ask of call 'c9'"):
            journaled.interpret()(
                journaled.session().resume(journaled.catalog, loud("a", "b"), answers)
            )
        assert journaled.journal.records() == kept  # all the answers or none: c1 still waits
        assert journaled.bodies == []
        resumed = journaled.interpret()(
            journaled.session().resume(journaled.catalog, loud("a", "b"), {"c1": "allowed-once"})
        )
        assert resumed.outcomes == ("resumed", "replayed")

    def test_the_echo_shows_every_record_the_session_appends_answers_included(
        self, journaled: JournalWorld
    ) -> None:
        echoed: list[SessionRecord] = []
        session = journaled.session(echo=echoed.append)
        journaled.asking.add("c1")
        journaled.world.approvals.append("deferred")
        journaled.run(loud("a"), session)
        journaled.interpret()(session.resume(journaled.catalog, loud("a"), {"c1": "allowed-once"}))
        assert journaled.bodies == ["shout:a"]
        assert echoed == list(journaled.journal.records())

    def test_parallel_calls_deferred_together_resume_together(
        self, journaled: JournalWorld
    ) -> None:
        calls = calls_of(("c1", "look", {"text": "a"}), ("c2", "look", {"text": "b"}))
        journaled.asking.update(("c1", "c2"))
        journaled.world.approvals.extend(["deferred", "deferred"])
        waiting = journaled.run(calls)
        assert [code_of(result) for result in waiting.results] == [ErrorCode.APPROVAL_PENDING] * 2
        assert sorted(ask.call_id for ask in waiting.open_asks) == ["c1", "c2"]
        for call_id in ("c1", "c2"):  # each call's records in order, however they interleave
            assert journaled.events(call_id) == ["tool/call", "tool/approval", "tool/result"]
        answers: dict[str, ApprovalReply] = {"c1": "allowed-once", "c2": "allowed-once"}
        resumed = journaled.interpret()(
            journaled.session().resume(journaled.catalog, calls, answers)
        )
        assert resumed.outcomes == ("resumed", "resumed")
        assert sorted(journaled.bodies) == ["look:a", "look:b"]
        assert [r.value for r in resumed.results if isinstance(r, ToolExecutionSuccess)] == [
            "saw a",
            "saw b",
        ]
