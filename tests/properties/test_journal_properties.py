"""Properties of journaled sessions over random batches, asks, answers and resumes (deterministic
interpreter): a session's recovery state, kept current record by record, is the journal's
reloaded; a body that is not idempotent never runs twice for one call id; and once a call is
settled, every later batch gets its durable result back unchanged. `look` (idempotent) is also
parallel-safe, so its calls overlap in the interleavings the drawn seed picks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

from hypothesis import given
from hypothesis import strategies as st

from tests.properties.test_recovery_properties import observed
from toolfx.core.journal import JournaledBatch, JournaledSession, JournalError, Settled, recover
from toolfx.core.pipeline import ToolCall
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal, RejectedWithFeedback
from toolfx.core.tools import (
    Ask,
    DurableResult,
    Output,
    PreToolDecision,
    ToolExecution,
    ToolOptions,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.testing import DeterministicInterpreter
from toolfx.testing._scenarios_journal import ListJournal


class Args(TypedDict):
    text: str


CallSpec = tuple[str, str, str]
"""A call: its id (one of IDS, shared with recovery's properties), tool and text."""

call_specs = st.tuples(
    st.sampled_from(["a", "b", "c"]), st.sampled_from(["shout", "look"]), st.sampled_from("xy")
)
REPLIES: list[ApprovalReply] = [
    "allowed-once",
    "rejected",
    "deferred",
    "deferred",
    "unavailable",
    RejectedWithFeedback("no"),
]
replies = st.sampled_from(REPLIES)


@dataclass(frozen=True)
class Run:
    calls: tuple[CallSpec, ...]
    fresh: bool
    """Run in a new session (another process) rather than the ongoing one."""


@dataclass(frozen=True)
class Answer:
    pick: int
    reply: ApprovalReply
    resume: tuple[CallSpec, ...] | None
    """Resume this batch with the answer, or only journal it."""


Step = Run | Answer
steps = st.lists(
    st.one_of(
        st.builds(Run, st.lists(call_specs, min_size=1, max_size=4).map(tuple), st.booleans()),
        st.builds(
            Answer,
            st.integers(0, 3),
            replies.filter(lambda reply: reply != "deferred"),
            st.none() | st.lists(call_specs, min_size=1, max_size=4).map(tuple),
        ),
    ),
    min_size=1,
    max_size=8,
)


@dataclass
class Agent:
    """The tools, the policy (asking about `asking`), the approval script and the bodies run."""

    asking: frozenset[str]
    approvals: list[ApprovalReply]
    bodies: Counter[str]

    def catalog(self) -> Catalog:
        location = Location()
        for name, idempotent in (("shout", False), ("look", True)):
            location.register(
                define_tool(
                    name=name,
                    description=name,
                    parameters=Args,
                    output=Output(str),
                    execute=self._body(name),
                    is_concurrency_safe=(lambda args: True) if idempotent else None,
                    options=ToolOptions(idempotent=idempotent),
                )
            )
        location.on_pre_execute(self._policy)
        location.add_scope("agent")
        return location.catalog("agent")

    def _body(self, name: str) -> Callable[[Args, ToolRunContext], str]:
        def body(args: Args, ctx: ToolRunContext) -> str:
            self.bodies[f"{name}:{ctx.call_id}"] += 1
            return args["text"].upper()

        return body

    async def _policy(self, execution: ToolExecution, next_: Any) -> PreToolDecision:
        if execution.call_id in self.asking:
            return Ask("asked")
        decision: PreToolDecision = await next_()
        return decision

    def approve(self, request: ApprovalRequest) -> ApprovalReply:
        return self.approvals.pop(0) if self.approvals else "deferred"


def tool_calls(specs: tuple[CallSpec, ...]) -> list[ToolCall]:
    return [ToolCall(i, name, {"text": text}, CancelSignal()) for i, name, text in specs]


@given(
    st.frozensets(st.sampled_from(["a", "b", "c"])),
    st.lists(replies, max_size=6),
    steps,
    st.integers(0, 2**16),
)
def test_journaled_sessions_keep_recovery_current_and_never_run_a_body_twice(
    asking: frozenset[str], approvals: list[ApprovalReply], drawn: list[Step], seed: int
) -> None:
    agent = Agent(asking, approvals, Counter())
    catalog = agent.catalog()
    interpreter = DeterministicInterpreter(seed=seed, approvals=agent.approve)
    journal = ListJournal()
    session = JournaledSession(journal)
    settled: dict[str, DurableResult] = {}
    for step in drawn:
        batch: JournaledBatch | None = None
        specs: tuple[CallSpec, ...] = ()
        if isinstance(step, Run):
            session = JournaledSession(journal) if step.fresh else session
            specs = step.calls
            batch = interpreter.run(session.execute(catalog, tool_calls(specs)))
        else:
            waiting = session.open_asks()
            call_id = waiting[step.pick % len(waiting)].call_id if waiting else "nobody"
            try:
                if step.resume is None:
                    session.answer(call_id, step.reply)
                else:
                    specs = step.resume
                    described = session.resume(catalog, tool_calls(specs), {call_id: step.reply})
                    batch = interpreter.run(described)
            except JournalError:
                assert not waiting
        assert observed(session.recovery) == observed(recover(journal.records()))
        assert all(count == 1 for name, count in agent.bodies.items() if name.startswith("shout"))
        if batch is None:
            continue
        for (call_id, _, _), result, outcome in zip(
            specs, batch.results, batch.outcomes, strict=True
        ):
            if call_id in settled and outcome != "conflict":
                assert DurableResult.of(result) == settled[call_id], call_id
        for call_id in ("a", "b", "c"):
            status = session.recovery.status(call_id)
            if isinstance(status, Settled):
                settled.setdefault(call_id, status.result)
