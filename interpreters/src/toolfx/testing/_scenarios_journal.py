"""Journal scenarios: a journaled batch replays, refuses or reruns each call the same way under
every interpreter.

A `JournaledSession` over an in-memory `ListJournal` runs the batches; a new session over the same
journal stands for another process (or the same agent after a crash). A crash is a journal that
keeps only a prefix of the records a run appended (`crashed`). The tools count their bodies and a
pre-execute listener counts the calls that reached policy, so each scenario can say exactly what
ran. Deferred approvals are in `_scenarios_journal_asks`, Code Mode in `_scenarios_journal_code`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypedDict, final

import pytest

from toolfx.core.journal import (
    MAX_SHOWN_ARGUMENT_CHARS,
    JournaledBatch,
    JournaledSession,
)
from toolfx.core.pipeline import ToolCall
from toolfx.core.records import (
    RecordSink,
    SessionRecord,
    ToolApprovalRecord,
    ToolCallRecord,
    ToolResultRecord,
    arguments_digest,
)
from toolfx.core.registry import Catalog
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    Ask,
    DurableResult,
    ErrorCode,
    Output,
    PreToolDecision,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
    tool,
)
from toolfx.testing._host import Host, Interpret, InterpreterFactory, ignore_progress
from toolfx.testing._scenarios_pipeline import PipelineWorld, World, code_of

__all__ = [
    "AGENT",
    "JournalScenarios",
    "JournalWorld",
    "JournaledWorld",
    "ListJournal",
    "calls_of",
    "crashed",
]

AGENT: Final = "agent"
"""The scope the journaled calls run in (an agent, so that asks have someone to ask for)."""


class Args(TypedDict):
    text: str


@final
class ListJournal:
    """A journal in memory: the records in a list; `refuse` says which appends raise (unkept)."""

    __slots__ = ("_kept", "_refuse")

    def __init__(
        self,
        records: Iterable[SessionRecord] = (),
        *,
        refuse: Callable[[SessionRecord], bool] | None = None,
    ) -> None:
        self._kept = list(records)
        self._refuse = refuse

    def append(self, record: SessionRecord) -> None:
        """Keep `record`, or raise if `refuse` says so (nothing is kept)."""
        if self._refuse is not None and self._refuse(record):
            raise OSError(f"the journal cannot keep the `{record.event}` record")
        self._kept.append(record)

    def records(self) -> tuple[SessionRecord, ...]:
        """Every record kept, in order."""
        return tuple(self._kept)

    def records_after(self, count: int) -> tuple[SessionRecord, ...]:
        """The records kept after the first `count` (a `FollowedJournal`, as SqliteJournal is)."""
        return tuple(self._kept[count:])


def crashed(records: Sequence[SessionRecord], last: Callable[[SessionRecord], bool]) -> ListJournal:
    """The journal a crash leaves: `records` up to the first one `last` accepts, included."""
    for index, record in enumerate(records):
        if last(record):
            return ListJournal(records[: index + 1])
    raise AssertionError("the crash point is not among the records")


def calls_of(*calls: tuple[str, str, object]) -> list[ToolCall]:
    """Calls from (call id, tool, arguments)."""
    return [
        ToolCall(call_id, name, arguments, CancelSignal()) for call_id, name, arguments in calls
    ]


@dataclass
class JournalWorld:
    """The tools of the journaled scenarios and what reached them.

    `shout` (neither idempotent nor safe to repeat) and `look` (idempotent and parallel-safe,
    from `@tool`) record each body run as `name:text`; `asking` names the calls the policy asks
    about.
    """

    world: World
    factory: InterpreterFactory
    journal: ListJournal = field(default_factory=ListJournal)
    bodies: list[str] = field(default_factory=list)
    reached_policy: list[str] = field(default_factory=list)
    asking: set[str] = field(default_factory=set)

    @property
    def catalog(self) -> Catalog:
        """The agent's catalog."""
        return self.world.location.catalog(AGENT)

    def session(
        self, journal: ListJournal | None = None, *, echo: RecordSink | None = None
    ) -> JournaledSession:
        """A new session over the journal (another process, or the same one after a crash)."""
        if journal is not None:
            self.journal = journal
        return JournaledSession(self.journal, echo=echo)

    def interpret(self) -> Interpret:
        """The `run` of an interpreter under test around the world."""
        host = Host(self.world.approve, self._report, ignore_progress)
        return self.factory(host).run

    def run(
        self, calls: Sequence[ToolCall], session: JournaledSession | None = None
    ) -> JournaledBatch:
        """Run `calls` as a journaled batch (by default in a new session)."""
        ran = (session or self.session()).execute(self.catalog, calls)
        batch = self.interpret()(ran)
        assert isinstance(batch, JournaledBatch)
        return batch

    def events(self, call_id: str) -> list[str]:
        """The events the journal holds for `call_id`, in order."""
        return [r.event for r in self.journal.records() if r.call_id == call_id]

    def _report(self, error: BaseException, where: str) -> None:
        self.world.reported.append(where)


def register_journal_tools(journal_world: JournalWorld) -> None:
    """`shout` and `look` in the `agent` scope; a listener noting each call that reaches policy
    and asking about the calls in `asking`."""
    location = journal_world.world.location

    def shout(args: Args, ctx: ToolRunContext) -> str:
        journal_world.bodies.append(f"shout:{args['text']}")
        return args["text"].upper()

    @tool(idempotent=True, parallel_safe=True)
    def look(text: str) -> str:
        """Look at a text (changes nothing)."""
        journal_world.bodies.append(f"look:{text}")
        return f"saw {text}"

    async def policy(execution: ToolExecution, next_: Any) -> PreToolDecision:
        journal_world.reached_policy.append(execution.call_id)
        if execution.call_id in journal_world.asking:
            return Ask("it is loud")
        decision: PreToolDecision = await next_()
        return decision

    location.register(
        define_tool(
            name="shout", description="shout", parameters=Args, output=Output(str), execute=shout
        )
    )
    location.register(look)
    location.on_pre_execute(policy)
    location.add_scope(AGENT)


class JournaledWorld(PipelineWorld):
    """The `journaled` fixture of the journal scenarios."""

    @pytest.fixture
    def journaled(self, world: World, interpreter_factory: InterpreterFactory) -> JournalWorld:
        """The journaled tools under the interpreter under test, over an empty journal."""
        journal_world = JournalWorld(world, interpreter_factory)
        register_journal_tools(journal_world)
        return journal_world


def in_doubt_after(journaled: JournalWorld, calls: Sequence[ToolCall]) -> None:
    """Run `calls`, then leave the journal as a crash before the first result would: every
    `tool/call` kept, no result."""
    journaled.run(calls)
    kept = [r for r in journaled.journal.records() if isinstance(r, ToolCallRecord)]
    journaled.journal = ListJournal(kept)


class JournalScenarios(JournaledWorld):
    """Replays, in-doubt calls, call-id conflicts and journal faults."""

    def test_settled_calls_are_replayed_without_policy_or_body(
        self, journaled: JournalWorld
    ) -> None:
        calls = calls_of(
            ("c1", "shout", {"text": "a"}),
            ("c2", "look", {"text": "b"}),
            ("c3", "shout", {"text": 3}),
        )
        first = journaled.run(calls)
        assert first.outcomes == ("new", "new", "new")
        assert code_of(first.results[2]) is ErrorCode.INVALID_ARGS
        kept = journaled.journal.records()
        again = journaled.run(calls)
        assert again.outcomes == ("replayed", "replayed", "replayed")
        assert journaled.bodies == ["shout:a", "look:b"]  # no body ran again
        assert journaled.reached_policy == ["c1", "c2", "c3"]  # nor policy
        assert journaled.journal.records() == kept  # a replay journals nothing
        for replayed, original in zip(again.results, first.results, strict=True):
            assert DurableResult.of(replayed) == DurableResult.of(original)
        assert again.results[2] == first.results[2]  # a failure is replayed whole

    def test_a_replayed_success_has_no_canonical_value(self, journaled: JournalWorld) -> None:
        # the journal keeps the durable projection only: a model's call gets its content back,
        # and the value (which the model never sees) is None
        calls = calls_of(("c1", "shout", {"text": "a"}))
        [first] = journaled.run(calls).results
        [again] = journaled.run(calls).results
        assert isinstance(first, ToolExecutionSuccess)
        assert isinstance(again, ToolExecutionSuccess)
        assert (first.value, again.value) == ("A", None)
        assert again.content == first.content

    def test_each_journaled_call_carries_its_arguments_hash(self, journaled: JournalWorld) -> None:
        journaled.run(calls_of(("c1", "shout", {"text": "a"}), ("c2", "look", {"text": "b"})))
        calls = [r for r in journaled.journal.records() if isinstance(r, ToolCallRecord)]
        assert [(r.call_id, r.arguments_hash) for r in calls] == [
            ("c1", arguments_digest({"text": "a"})),
            ("c2", arguments_digest({"text": "b"})),
        ]

    def test_an_in_doubt_call_is_not_run_again_and_the_model_is_told(
        self, journaled: JournalWorld
    ) -> None:
        calls = calls_of(("c1", "shout", {"text": "a"}))
        in_doubt_after(journaled, calls)
        assert journaled.bodies == ["shout:a"]
        assert journaled.session().recovery.in_doubt() == journaled.journal.records()
        recovered = journaled.run(calls)
        assert recovered.outcomes == ("in-doubt",)
        assert journaled.bodies == ["shout:a"]
        [result] = recovered.results
        assert code_of(result) is ErrorCode.IN_DOUBT
        assert isinstance(result, ToolExecutionFailure)
        assert "`shout`" in result.error.message
        assert '{"text": "a"}' in result.error.message
        assert journaled.events("c1") == ["tool/call", "tool/result"]  # the failure is journaled
        replayed = journaled.run(calls)
        assert replayed.outcomes == ("replayed",)
        assert replayed.results == recovered.results
        assert journaled.bodies == ["shout:a"]

    def test_an_in_doubt_calls_message_quotes_its_arguments_bounded(
        self, journaled: JournalWorld
    ) -> None:
        long = "x" * (MAX_SHOWN_ARGUMENT_CHARS * 10)
        calls = calls_of(("c1", "shout", {"text": long}))
        in_doubt_after(journaled, calls)
        [result] = journaled.run(calls).results
        assert isinstance(result, ToolExecutionFailure)
        quoted = result.error.message.split("Its arguments were: ", 1)[1]
        assert len(quoted) == MAX_SHOWN_ARGUMENT_CHARS
        assert quoted == '{"text": "' + "x" * (MAX_SHOWN_ARGUMENT_CHARS - 13) + "..."

    def test_an_idempotent_in_doubt_call_runs_again(self, journaled: JournalWorld) -> None:
        calls = calls_of(("c1", "look", {"text": "b"}))
        in_doubt_after(journaled, calls)
        recovered = journaled.run(calls)
        assert recovered.outcomes == ("rerun",)
        assert journaled.bodies == ["look:b", "look:b"]
        assert journaled.reached_policy == ["c1", "c1"]  # a call run again goes through policy
        [result] = recovered.results
        assert isinstance(result, ToolExecutionSuccess)
        assert result.value == "saw b"
        assert journaled.events("c1") == ["tool/call", "tool/call", "tool/result"]

    @pytest.mark.parametrize(
        ("name", "arguments", "why"),
        [
            ("shout", {"text": "b"}, "was used before for a call of `shout`"),
            ("look", {"text": "a"}, "was used before for a call of `shout`"),
            ("shout", {"text": "a", "more": 1}, "was used before for a call of `shout`"),
        ],
        ids=["other-arguments", "other-tool", "more-arguments"],
    )
    def test_a_call_id_used_before_for_another_call_is_refused(
        self, journaled: JournalWorld, name: str, arguments: object, why: str
    ) -> None:
        journaled.run(calls_of(("c1", "shout", {"text": "a"})))
        kept = journaled.journal.records()
        refused = journaled.run(calls_of(("c1", name, arguments)))
        assert refused.outcomes == ("conflict",)
        [result] = refused.results
        assert code_of(result) is ErrorCode.CALL_ID_CONFLICT
        assert isinstance(result, ToolExecutionFailure)
        assert why in result.error.message
        assert f"this call of `{name}` was not run" in result.error.message
        assert journaled.journal.records() == kept  # nothing journaled for the refused call
        assert journaled.bodies == ["shout:a"]
        again = journaled.run(calls_of(("c1", "shout", {"text": "a"})))
        assert again.outcomes == ("replayed",)  # the journaled call stays as it was

    def test_a_call_another_session_settled_is_replayed_not_run_again(
        self, journaled: JournalWorld
    ) -> None:
        # two sessions over one journal (two runs of the same agent, one after the other): each
        # batch reads what the other appended since, so no call runs twice
        calls = calls_of(("c1", "shout", {"text": "a"}))
        one, other = journaled.session(), journaled.session()
        assert journaled.run(calls, one).outcomes == ("new",)
        assert journaled.run(calls, other).outcomes == ("replayed",)
        in_doubt_after(journaled, calls_of(("c2", "shout", {"text": "b"})))
        late = journaled.session()
        journaled.run(calls_of(("c2", "shout", {"text": "b"})))  # told: IN_DOUBT, journaled
        assert journaled.run(calls_of(("c2", "shout", {"text": "b"})), late).outcomes == (
            "replayed",
        )
        assert journaled.bodies == ["shout:a", "shout:b"]

    def test_a_call_id_twice_in_one_batch_runs_the_first_only(
        self, journaled: JournalWorld
    ) -> None:
        batch = journaled.run(
            calls_of(("c1", "shout", {"text": "a"}), ("c1", "shout", {"text": "a"}))
        )
        assert batch.outcomes == ("new", "conflict")
        assert isinstance(batch.results[0], ToolExecutionSuccess)
        assert code_of(batch.results[1]) is ErrorCode.CALL_ID_CONFLICT
        assert journaled.bodies == ["shout:a"]
        assert journaled.events("c1") == ["tool/call", "tool/result"]

    def test_a_call_whose_call_record_cannot_be_journaled_is_not_run(
        self, journaled: JournalWorld
    ) -> None:
        journal = ListJournal(refuse=lambda record: isinstance(record, ToolCallRecord))
        batch = journaled.run(calls_of(("c1", "shout", {"text": "a"})), journaled.session(journal))
        [result] = batch.results
        assert code_of(result) is ErrorCode.UNEXPECTED_ERROR
        assert isinstance(result, ToolExecutionFailure)
        assert "the call was not run" in result.error.message
        assert (journaled.bodies, journaled.reached_policy) == ([], [])
        assert journal.records() == ()
        assert journaled.session().recovery.status("c1") is None  # still new: it may run later

    def test_an_approval_that_cannot_be_journaled_is_not_approved(
        self, journaled: JournalWorld
    ) -> None:
        journal = ListJournal(refuse=lambda record: isinstance(record, ToolApprovalRecord))
        journaled.asking.add("c1")
        journaled.world.approvals.append("allowed-once")
        batch = journaled.run(calls_of(("c1", "shout", {"text": "a"})), journaled.session(journal))
        [result] = batch.results
        assert code_of(result) is ErrorCode.UNEXPECTED_ERROR
        assert journaled.bodies == []
        assert len(journaled.world.asked) == 1
        assert journaled.events("c1") == ["tool/call", "tool/result"]

    def test_an_in_doubt_failure_the_journal_refuses_is_a_record_fault(
        self, journaled: JournalWorld
    ) -> None:
        calls = calls_of(("c1", "shout", {"text": "a"}))
        in_doubt_after(journaled, calls)
        journal = ListJournal(
            journaled.journal.records(), refuse=lambda r: isinstance(r, ToolResultRecord)
        )
        batch = journaled.run(calls, journaled.session(journal))
        assert code_of(batch.results[0]) is ErrorCode.IN_DOUBT  # the model is told all the same
        [fault] = batch.batch.record_faults
        assert (fault.record.event, fault.record.call_id) == ("tool/result", "c1")
        assert journaled.world.reported == ["the record sink, taking the `tool/result` of c1"]

    def test_a_parallel_limit_below_one_is_refused_before_anything_is_journaled(
        self, journaled: JournalWorld
    ) -> None:
        calls = calls_of(("c1", "shout", {"text": "a"}))
        in_doubt_after(journaled, calls)
        kept = journaled.journal.records()
        session = journaled.session()
        with pytest.raises(ValueError, match="the parallel limit must be at least 1, not 0"):
            session.execute(journaled.catalog, calls, 0)
        with pytest.raises(ValueError, match="the parallel limit must be at least 1, not 0"):
            session.resume(journaled.catalog, calls, {}, 0)
        assert journaled.journal.records() == kept

    def test_a_raising_echo_is_only_reported(self, journaled: JournalWorld) -> None:
        echoed: list[str] = []

        def echo(record: SessionRecord) -> None:
            echoed.append(record.event)
            raise RuntimeError("the screen is gone")

        calls = calls_of(("c1", "shout", {"text": "a"}))
        batch = journaled.run(calls, journaled.session(echo=echo))
        assert isinstance(batch.results[0], ToolExecutionSuccess)
        assert echoed == ["tool/call", "tool/result"]
        assert journaled.events("c1") == echoed  # committed before the echo raised
        assert journaled.world.reported == [
            "the journal's echo, showing the `tool/call`",
            "the journal's echo, showing the `tool/result`",
        ]
        assert journaled.run(calls).outcomes == ("replayed",)
