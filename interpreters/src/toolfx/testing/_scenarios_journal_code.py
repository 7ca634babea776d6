"""Journaled Code Mode: a program waiting for an approval, or cut short by a crash, runs again
with its settled sub-calls answered from the journal, the same under every interpreter.

A program runs again from its start (a scripted engine here, as Monty would): each sub-call the
journal settles gets the answer its program got the first time (`tool/code-answer`, the value
included) without running; a pending one whose ask was answered runs; an in-doubt one runs again
only when idempotent, else the program is answered IN_DOUBT.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

import pytest

from toolfx.core.codemode import RUN_CODE
from toolfx.core.journal import JournaledBatch, JournaledSession
from toolfx.core.pipeline import ToolCall
from toolfx.core.records import ToolCallRecord, ToolCodeAnswerRecord, ToolCodeDispatchRecord
from toolfx.core.runtime import ApprovalReply, CancelSignal
from toolfx.core.tools import (
    Ask,
    ErrorCode,
    Output,
    PreToolDecision,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolOptions,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.testing import Pause, Script, ScriptedCode
from toolfx.testing._host import Host, InterpreterFactory, ignore_progress
from toolfx.testing._scenarios_codemode import (
    CODER,
    OUTER,
    TEXT,
    Args,
    CodeModeWorld,
    CodeWorld,
    Program,
    caught,
    shouting,
)
from toolfx.testing._scenarios_journal import ListJournal, crashed
from toolfx.testing._scenarios_pipeline import code_of

__all__ = ["JournalCodeScenarios"]

FIRST, SECOND = f"{OUTER}:code:1", f"{OUTER}:code:2"
"""The ids of a program's first two sub-calls."""


class Counted(TypedDict):
    text: str
    length: int


@dataclass
class JournaledCoder:
    """Runs `run_code` as a journaled batch with a scripted engine, under the interpreter under
    test; the policy asks about the sub-calls in `asking`."""

    code: CodeWorld
    factory: InterpreterFactory
    journal: ListJournal = field(default_factory=ListJournal)
    asking: set[str] = field(default_factory=set)
    engines: list[ScriptedCode] = field(default_factory=list)

    def run(
        self,
        script: Script,
        *,
        answers: dict[str, ApprovalReply] | None = None,
        calls: list[ToolCall] | None = None,
    ) -> JournaledBatch:
        """Run the program (or `calls`) in a new session, answering `answers` first."""
        engine = ScriptedCode({TEXT: script})
        self.engines.append(engine)
        host = Host(self.code.world.approve, self._report, ignore_progress, code=engine)
        session = JournaledSession(self.journal)
        catalog = self.code.world.location.catalog(CODER)
        batch = calls or [ToolCall(OUTER, RUN_CODE, {"code": TEXT}, CancelSignal())]
        described = (
            session.execute(catalog, batch)
            if answers is None
            else session.resume(catalog, batch, answers)
        )
        ran = self.factory(host).run(described)
        assert isinstance(ran, JournaledBatch)
        return ran

    def _report(self, error: BaseException, where: str) -> None:
        self.code.world.reported.append(where)


def result_of(batch: JournaledBatch) -> ToolExecutionResult:
    """The one result of a batch of one call."""
    [result] = batch.results
    return result


def value_of(batch: JournaledBatch) -> object:
    """The program's value (its run must have succeeded)."""
    result = result_of(batch)
    assert isinstance(result, ToolExecutionSuccess), result
    return result.value


def register_journal_code_tools(code: CodeWorld) -> None:
    """`count` (a record value, not its rendered text) and `look` (idempotent), in Code Mode."""

    def count(args: Args, ctx: ToolRunContext) -> Counted:
        code.bodies.append(args["text"])
        return {"text": args["text"], "length": len(args["text"])}

    def look(args: Args, ctx: ToolRunContext) -> str:
        code.bodies.append(args["text"])
        return args["text"].upper()

    location = code.world.location
    location.register(
        define_tool(
            name="count",
            description="count",
            parameters=Args,
            output=Output(Counted),
            execute=count,
        )
    )
    location.register(
        define_tool(
            name="look",
            description="look",
            parameters=Args,
            output=Output(str),
            execute=look,
            options=ToolOptions(idempotent=True),
        )
    )


def two_calls(first: str, second: str) -> Script:
    """A program calling `first` then `second`, catching the second's failure."""

    def script() -> Program:
        got = yield Pause.call(first, text="a")
        try:
            then = yield Pause.call(second, text="b")
        except RuntimeError as error:
            then = caught(error)
        return [got, then]

    return script


class JournalCodeScenarios(CodeModeWorld):
    """Programs resumed after a deferred ask or a crash, and sub-call ids the model reuses."""

    @pytest.fixture
    def journaled_coder(
        self, code: CodeWorld, interpreter_factory: InterpreterFactory
    ) -> JournaledCoder:
        """Journaled `run_code` calls; sub-calls in `asking` are asked about."""
        register_journal_code_tools(code)
        coder = JournaledCoder(code, interpreter_factory)

        async def policy(execution: ToolExecution, next_: Any) -> PreToolDecision:
            if execution.call_id in coder.asking:
                return Ask("it is loud")
            decision: PreToolDecision = await next_()
            return decision

        code.world.location.on_pre_execute(policy)
        return coder

    def test_a_program_waiting_for_an_approval_resumes_without_running_settled_calls(
        self, code: CodeWorld, journaled_coder: JournaledCoder
    ) -> None:
        script = two_calls("count", "shout")
        journaled_coder.asking.add(SECOND)
        code.world.approvals.append("deferred")
        waiting = journaled_coder.run(script)
        assert waiting.outcomes == ("new",)
        result = result_of(waiting)
        assert code_of(result) is ErrorCode.APPROVAL_PENDING
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.info.details == {"waitingFor": [SECOND]}
        assert code.bodies == ["a"]
        assert [ask.call_id for ask in waiting.open_asks] == [SECOND]
        answers = [
            r for r in journaled_coder.journal.records() if isinstance(r, ToolCodeAnswerRecord)
        ]
        assert answers[0] == ToolCodeAnswerRecord(FIRST, {"text": "a", "length": 1})
        resumed = journaled_coder.run(script, answers={SECOND: "allowed-once"})
        assert resumed.outcomes == ("resumed",)
        assert code.bodies == ["a", "b"]  # the first sub-call was not run again
        assert value_of(resumed) == [{"text": "a", "length": 1}, "B"]  # its value, from the journal
        assert len(code.world.asked) == 1
        assert resumed.open_asks == ()
        again = journaled_coder.run(script)
        assert again.outcomes == ("replayed",)
        assert code.bodies == ["a", "b"]
        assert [len(engine.sessions) for engine in journaled_coder.engines] == [1, 1, 0]

    def test_gathered_sub_calls_resume_only_the_deferred_one(
        self, code: CodeWorld, journaled_coder: JournaledCoder
    ) -> None:
        def script() -> Program:
            gathered = yield Pause.gather(
                Pause.call("read", text="a"), Pause.call("read", text="b")
            )
            return gathered

        journaled_coder.asking.add(SECOND)
        code.world.approvals.append("deferred")
        waiting = result_of(journaled_coder.run(script))
        assert code_of(waiting) is ErrorCode.APPROVAL_PENDING
        assert isinstance(waiting, ToolExecutionFailure)
        assert waiting.error.info.details == {"waitingFor": [SECOND]}
        assert code.bodies == ["a"]
        resumed = journaled_coder.run(script, answers={SECOND: "allowed-once"})
        assert value_of(resumed) == ["A", "B"]
        assert sorted(code.bodies) == ["a", "b"]

    @pytest.mark.parametrize("name", ["shout", "native"], ids=["same-tool", "other-tool"])
    def test_a_model_call_reusing_a_sub_call_id_is_refused(
        self, code: CodeWorld, journaled_coder: JournaledCoder, name: str
    ) -> None:
        journaled_coder.run(shouting("hi"))
        kept = journaled_coder.journal.records()
        reused = ToolCall(FIRST, name, {"text": "hi"}, CancelSignal())  # same arguments
        refused = journaled_coder.run(shouting("hi"), calls=[reused])
        assert refused.outcomes == ("conflict",)
        assert code_of(result_of(refused)) is ErrorCode.CALL_ID_CONFLICT
        assert code.bodies == ["hi"]
        assert journaled_coder.journal.records() == kept

    @pytest.mark.parametrize(
        ("second", "then", "bodies"),
        [
            ("look", "B", ["a", "b", "b"]),
            ("shout", ["RuntimeError", "`shout` failed (IN_DOUBT): `shout` may"], ["a", "b"]),
        ],
        ids=["idempotent-runs-again", "other-in-doubt"],
    )
    def test_a_run_code_in_doubt_runs_again_with_its_settled_sub_calls_replayed(
        self,
        code: CodeWorld,
        journaled_coder: JournaledCoder,
        second: str,
        then: object,
        bodies: list[str],
    ) -> None:
        script = two_calls("shout", second)
        assert value_of(journaled_coder.run(script)) == ["A", "B"]
        journaled_coder.journal = crashed(
            journaled_coder.journal.records(),
            lambda record: isinstance(record, ToolCallRecord) and record.call_id == SECOND,
        )
        recovered = journaled_coder.run(script)
        assert recovered.outcomes == ("rerun",)
        value = value_of(recovered)
        assert isinstance(value, list)
        got, answered = value
        assert got == "A"  # the first sub-call's answer, from the journal
        if isinstance(then, list):
            assert isinstance(answered, list)
            assert answered[0] == then[0]
            assert answered[1].startswith(then[1])
        else:
            assert answered == then
        assert code.bodies == bodies

    def test_gathered_asks_answered_one_at_a_time_resume_one_at_a_time(
        self, code: CodeWorld, journaled_coder: JournaledCoder
    ) -> None:
        def script() -> Program:
            gathered = yield Pause.gather(
                Pause.call("read", text="a"), Pause.call("read", text="b")
            )
            return gathered

        journaled_coder.asking.update((FIRST, SECOND))
        code.world.approvals.extend(["deferred", "deferred"])
        waiting = result_of(journaled_coder.run(script))
        assert isinstance(waiting, ToolExecutionFailure)
        assert waiting.error.info.details == {"waitingFor": [FIRST, SECOND]}
        half = journaled_coder.run(script, answers={FIRST: "allowed-once"})
        assert half.outcomes == ("resumed",)
        still = result_of(half)
        assert isinstance(still, ToolExecutionFailure)
        assert still.error.info.details == {"waitingFor": [SECOND]}
        assert [ask.call_id for ask in half.open_asks] == [SECOND]
        assert code.bodies == ["a"]
        done = journaled_coder.run(script, answers={SECOND: "allowed-once"})
        assert value_of(done) == ["A", "B"]
        assert code.bodies == ["a", "b"]
        assert len(code.world.asked) == 2

    def test_a_program_asking_twice_in_turn_waits_twice(
        self, code: CodeWorld, journaled_coder: JournaledCoder
    ) -> None:
        script = shouting("a", "b")
        journaled_coder.asking.update((FIRST, SECOND))
        code.world.approvals.extend(["deferred", "deferred"])
        first = result_of(journaled_coder.run(script))
        assert isinstance(first, ToolExecutionFailure)
        assert first.error.info.details == {"waitingFor": [FIRST]}
        second = result_of(journaled_coder.run(script, answers={FIRST: "allowed-once"}))
        assert isinstance(second, ToolExecutionFailure)
        assert second.error.info.details == {"waitingFor": [SECOND]}
        assert code.bodies == ["a"]
        done = journaled_coder.run(script, answers={SECOND: "allowed-once"})
        assert value_of(done) == ["A", "B"]
        assert code.bodies == ["a", "b"]

    def test_a_sub_call_answer_the_journal_refuses_is_a_record_fault(
        self, code: CodeWorld, journaled_coder: JournaledCoder
    ) -> None:
        journaled_coder.journal = ListJournal(
            refuse=lambda record: isinstance(record, ToolCodeAnswerRecord)
        )
        ran = journaled_coder.run(shouting("a"))
        assert value_of(ran) == ["A"]
        [fault] = ran.batch.record_faults
        assert (fault.record.event, fault.record.call_id) == ("tool/code-answer", FIRST)

    def test_a_program_making_another_call_when_run_again_is_refused_that_call(
        self, code: CodeWorld, journaled_coder: JournaledCoder
    ) -> None:
        runs: list[int] = []

        def script() -> Program:  # its second call's text changes from one run to the next
            runs.append(len(runs))
            got = yield Pause.call("shout", text="a")
            try:
                then = yield Pause.call("shout", text=f"b{len(runs)}")
            except RuntimeError as error:
                then = caught(error)
            return [got, then]

        journaled_coder.asking.add(SECOND)
        code.world.approvals.append("deferred")
        journaled_coder.run(script)
        resumed = journaled_coder.run(script, answers={SECOND: "allowed-once"})
        value = value_of(resumed)
        assert isinstance(value, list)
        assert value[0] == "A"
        assert value[1][0] == "RuntimeError"
        assert "(CALL_ID_CONFLICT)" in value[1][1]
        assert code.bodies == ["a"]  # neither call of the second run ran

    def test_a_program_cut_short_while_waiting_for_an_approval_waits_again(
        self, code: CodeWorld, journaled_coder: JournaledCoder
    ) -> None:
        script = two_calls("count", "shout")
        journaled_coder.asking.add(SECOND)
        code.world.approvals.append("deferred")
        journaled_coder.run(script)
        journaled_coder.journal = crashed(  # before the run_code's own result was kept
            journaled_coder.journal.records(),
            lambda record: isinstance(record, ToolCodeDispatchRecord) and record.call_id == SECOND,
        )
        waiting = journaled_coder.run(script)
        assert waiting.outcomes == ("rerun",)
        result = result_of(waiting)
        assert code_of(result) is ErrorCode.APPROVAL_PENDING
        assert [ask.call_id for ask in waiting.open_asks] == [SECOND]
        assert (code.bodies, len(code.world.asked)) == (["a"], 1)
        resumed = journaled_coder.run(script, answers={SECOND: "allowed-once"})
        assert value_of(resumed) == [{"text": "a", "length": 1}, "B"]
        assert code.bodies == ["a", "b"]
