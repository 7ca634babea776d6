"""Exactly once across a crash: random journaled sessions, a crash anywhere, then recovery.

A session is a few turns, each a batch of random calls on a workspace over the in-memory file
system (the leaves `write`, `edit`, `read`, `glob`, `grep`; `append` and `approved_append`, which
add a line to a log and are not idempotent, the second behind a pre-execute `Ask`; the idempotent
`ensure_line`; `stamp`, not idempotent and parallel-safe, which runs beside other calls and
pauses between its effect and its result; and Code Mode programs, scripted, calling those
tools). Asks are answered at random: allowed, rejected, or "deferred", in which case the host
answers them later and resumes the batch (`JournaledSession.resume`) until no ask of it waits.
Each run of the session has a seed of its own. The crash-free session gives the crash points:
every scheduler step of every run (`CrashAt`) and every append to the journal, before or after
its commit (`CrashAtAppend`); one is drawn. The session is run again with the crash there, and a
fresh `JournaledSession` over the survivor journal (a restarted process: same files, same calls
with the same ids, same answers) runs every turn again to the end; now and then it crashes too
(at a drawn append) and a third process finishes. Then, with the crash-free session as the
reference:

1. The journal up to the crash is a prefix of the crash-free journal (the run was the same until
   it died, and nothing reached the journal after its death).
2. After recovery no call is in doubt and no ask waits.
3. Every effect happened at most once: each non-idempotent call adds a mark of its own to the
   world (a log line, an edit's tag, a written file); it is there once if the call's final
   result is a success, never if it is another failure, and at most once if it is IN_DOUBT (the
   model was told it may have run). No mark is ever there twice.
4. Every call (or Code Mode sub-call) whose result was committed before the crash gets that very
   result after recovery, equal to the crash-free session's (the durable projection: what the
   journal keeps), and the model's calls among them are replayed.
5. If every call that ended IN_DOUBT did take effect (its mark is in the world) and every `edit`
   ended as in the crash-free session, recovery ends in the crash-free world (the whole file
   system), and every call that is not itself IN_DOUBT and is no program with an IN_DOUBT
   sub-call ends with the crash-free session's result (durable projection). This is what
   exactly once buys: effectful calls run one at a time (they are exclusive), or, as `stamp`,
   touch nothing another call reads, so a call sees the world its predecessors left, and with
   every effect made once that world is the crash-free one. When an IN_DOUBT call did not take
   effect, the world lacks its mark and later results may differ; and `edit` edits only a file
   read in this process (the workspace remembers reads in memory, which a restart loses: a read
   replayed from the journal is not read again), so after a restart it may refuse with "read it
   first" where the crash-free session edited. Then only 1-4 hold.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from toolfx.core.codemode import RUN_CODE
from toolfx.core.journal import JournaledBatch, JournaledSession, Settled, recover
from toolfx.core.json import FrozenJson
from toolfx.core.pipeline import ToolCall
from toolfx.core.records import SessionRecord, ToolResultRecord
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    CancelSignal,
    Description,
    FileError,
    FileErrorKind,
)
from toolfx.core.tools import (
    Allow,
    Ask,
    DurableResult,
    ErrorCode,
    PreToolDecision,
    ToolExecution,
    ToolExecutionResult,
    ToolRunContext,
    tool,
)
from toolfx.interpreters.testing import (
    CrashAt,
    CrashAtAppend,
    Crashed,
    DeterministicInterpreter,
    MemoryFileSystem,
    MemoryJournal,
    Pause,
    Script,
    ScriptedCode,
)
from toolfx.leaves import Permissions, Rule, Workspace, workspace_tools

ROOT: Final = "/ws"
LOGS: Final = ("logs/a.log", "logs/b.log")
NOTES: Final = "notes/a.txt"
OUTSIDE: Final = "/outside"
"""Where `stamp` writes: no leaf sees it, so stamps running beside reads change none of them."""
MAX_RESUMES: Final = 4
"""Resumes of one turn at most: every ask is answered at its first resume; a program that asks
again further on needs one more per ask."""

Log = Literal["logs/a.log", "logs/b.log"]


# ---------------------------------------------------------------------------------------------
# The tools of our own: a line added to a log through the runtime's files.


async def _add_line(ctx: ToolRunContext[None], path: str, line: str, *, unless_there: bool) -> int:
    files = ctx.runtime.files
    old = (await files.read_bytes(f"{ROOT}/{path}", within=ROOT)).decode()
    if unless_there and line in old.splitlines():
        return old.count("\n")
    new = old + line + "\n"
    await files.write_bytes(f"{ROOT}/{path}", new.encode(), within=ROOT)
    return new.count("\n")


@tool
async def append(path: Log, line: str, ctx: ToolRunContext[None]) -> int:
    """Add `line` at the end of the log (twice is two lines); give how many lines it has."""
    return await _add_line(ctx, path, line, unless_there=False)


@tool
async def approved_append(path: Log, line: str, ctx: ToolRunContext[None]) -> int:
    """Add `line` at the end of the log once someone approves; give how many lines it has."""
    return await _add_line(ctx, path, line, unless_there=False)


@tool(idempotent=True)
async def ensure_line(path: Log, line: str, ctx: ToolRunContext[None]) -> int:
    """Add `line` to the log unless it is there already; give how many lines it has."""
    return await _add_line(ctx, path, line, unless_there=True)


@tool(parallel_safe=True)
async def stamp(name: str, ctx: ToolRunContext[None]) -> int:
    """Add a line to the stamp `name` outside the workspace (twice is two lines), then pause."""
    files, path = ctx.runtime.files, f"{OUTSIDE}/{name}"
    try:
        old = (await files.read_bytes(path, within=OUTSIDE)).decode()
    except FileError as error:
        if error.kind is not FileErrorKind.NOT_FOUND:
            raise
        old = ""
    await files.write_bytes(path, f"{old}stamped\n".encode(), within=OUTSIDE)
    await ctx.runtime.checkpoint()  # a step between the effect and the result
    return len(old) // len("stamped\n") + 1


async def ask_for_approved_append(
    execution: ToolExecution, following: Callable[[], Awaitable[PreToolDecision]]
) -> PreToolDecision:
    if execution.name == "approved_append":
        return Ask("appending to a log needs a yes")
    return Allow()


# ---------------------------------------------------------------------------------------------
# The calls a session makes.

Kind = Literal[
    "append",
    "approved",
    "ensure",
    "stamp",
    "write",
    "write-gated",
    "edit",
    "read",
    "glob",
    "grep",
    "code",
]
SubKind = Literal["append", "approved", "ensure", "write-gated", "edit", "read"]

EFFECTFUL: Final = frozenset(
    {"append", "approved", "ensure", "stamp", "write", "write-gated", "edit"}
)

FIRST_REPLIES: Final[tuple[ApprovalReply, ...]] = ("allowed-once", "rejected", "deferred")
FINAL_REPLIES: Final[tuple[ApprovalReply, ...]] = ("allowed-once", "rejected")


@dataclass(frozen=True, slots=True)
class Plan:
    """One call (or one program's call) as drawn: what it does and how its ask is answered."""

    kind: Kind
    choice: int
    """Which log, file or pattern it works on."""
    first: ApprovalReply
    """The reply to its ask when it is first asked."""
    final: ApprovalReply
    """The answer the host gives later, if the first reply was "deferred"."""
    program: tuple[Plan, ...] = ()
    """A Code Mode program's calls, in order (kind "code" only)."""


def plans(kinds: Sequence[str]) -> st.SearchStrategy[Plan]:
    return st.builds(
        Plan,
        st.sampled_from(kinds),
        st.integers(0, 1),
        st.sampled_from(FIRST_REPLIES),
        st.sampled_from(FINAL_REPLIES),
    )


SUB_KINDS: Final = ("append", "approved", "ensure", "write-gated", "edit", "read")
KINDS: Final = (*SUB_KINDS, "stamp", "write", "glob", "grep", "code")


def expanded(plan: Plan) -> tuple[Plan, ...]:
    """An edit comes after a read of its file: the leaf edits only what this process has read."""
    if plan.kind == "edit":
        return (Plan("read", 0, plan.first, plan.final), plan)
    return (plan,)


@st.composite
def call_plans(draw: st.DrawFn) -> tuple[Plan, ...]:
    plan = draw(plans(KINDS))
    if plan.kind != "code":
        return expanded(plan)
    program = draw(st.lists(plans(SUB_KINDS), min_size=1, max_size=3))
    calls = tuple(call for sub in program for call in expanded(sub))
    return (Plan("code", plan.choice, plan.first, plan.final, calls),)


@dataclass(frozen=True, slots=True)
class Session:
    """A session's turns (each a batch of calls), with the seed of each run."""

    turns: tuple[tuple[Plan, ...], ...]
    seed: int


turns = st.lists(call_plans(), min_size=1, max_size=3).map(
    lambda groups: tuple(plan for group in groups for plan in group)
)
sessions = st.builds(
    Session, st.lists(turns, min_size=1, max_size=3).map(tuple), st.integers(0, 2**16)
)


def call_id(turn: int, index: int) -> str:
    return f"t{turn}c{index}"


def sub_id(outer: str, number: int) -> str:
    return f"{outer}:code:{number}"


def arguments(plan: Plan, identity: str) -> dict[str, object]:
    """The call's arguments: each effectful call leaves a mark naming its id."""
    log = LOGS[plan.choice]
    match plan.kind:
        case "append" | "approved" | "ensure":
            return {"path": log, "line": identity}
        case "write":
            return {"path": f"written/{identity}.txt", "content": identity}
        case "write-gated":
            return {"path": f"gated/{identity}.txt", "content": identity}
        case "edit":
            return {"path": NOTES, "old": "alpha", "new": f"alpha#{identity}#"}
        case "read":
            return {"path": (NOTES, LOGS[0], "missing.txt")[plan.choice]}
        case "stamp":
            return {"name": identity}
        case "glob":
            return {"pattern": ("**/*.log", "**/*")[plan.choice]}
        case "grep":
            return {"regex": ("alpha", "t[0-9]")[plan.choice]}
        case "code":
            return {"code": program_text(plan, identity)}


TOOL_NAMES: Final[Mapping[str, str]] = {
    "append": "append",
    "approved": "approved_append",
    "ensure": "ensure_line",
    "stamp": "stamp",
    "write": "write",
    "write-gated": "write",
    "edit": "edit",
    "read": "read",
    "glob": "glob",
    "grep": "grep",
    "code": RUN_CODE,
}


def program_calls(plan: Plan, identity: str) -> list[tuple[str, dict[str, object]]]:
    """A program's calls in order: each tool's name and arguments."""
    return [
        (TOOL_NAMES[sub.kind], arguments(sub, sub_id(identity, number)))
        for number, sub in enumerate(plan.program, start=1)
    ]


def program_text(plan: Plan, identity: str) -> str:
    return f"# the program of {identity}\n{json.dumps(program_calls(plan, identity))}"


def script(plan: Plan, identity: str) -> Script:
    """The program: each call in turn, catching what it raises; its value is what it received."""
    calls = program_calls(plan, identity)

    def run() -> Generator[Pause, object, object]:
        received: list[object] = []
        for name, passed in calls:
            try:
                received.append((yield Pause.call(name, **passed)))
            except Exception as error:  # a failed call raises in the program, which goes on
                received.append(["raised", type(error).__name__])
        return received

    return run


# ---------------------------------------------------------------------------------------------
# The world and the process.


def world() -> MemoryFileSystem:
    return MemoryFileSystem.from_files(
        {
            f"{ROOT}/{LOGS[0]}": "",
            f"{ROOT}/{LOGS[1]}": "",
            f"{ROOT}/{NOTES}": "alpha\nbeta\n",
            f"{OUTSIDE}/.keep": "",
        }
    )


def catalog_of() -> Catalog:
    rules = Permissions([Rule("edit", "*", "allow"), Rule("edit", "gated/*", "ask")])
    location = Location()
    for leaf in workspace_tools(Workspace(ROOT, rules, state_dir="/state/ws")):
        if leaf.name in {"write", "edit", "read", "glob", "grep"}:
            location.register(leaf)
    for own in (append, approved_append, ensure_line, stamp):
        location.register(own)
    location.on_pre_execute(ask_for_approved_append)
    location.add_scope("agent")
    location.present_as("agent", "both")
    return location.catalog("agent")


@dataclass(frozen=True, slots=True)
class Drawn:
    """A drawn session made concrete: its calls per turn, the plan of every id, the engine."""

    session: Session
    calls: tuple[tuple[ToolCall, ...], ...]
    plans: Mapping[str, Plan]
    """Every call id's plan, Code Mode sub-calls included."""
    engine: ScriptedCode

    def answer_first(self, request: ApprovalRequest) -> ApprovalReply:
        plan = self.plans.get(request.call_id)
        return "unavailable" if plan is None else plan.first

    def answer_later(self, call_id: str) -> ApprovalReply:
        return self.plans[call_id].final


def concrete(session: Session) -> Drawn:
    calls: list[tuple[ToolCall, ...]] = []
    every: dict[str, Plan] = {}
    scripts: dict[str, Script] = {}
    for turn, batch in enumerate(session.turns, start=1):
        made = []
        for index, plan in enumerate(batch, start=1):
            identity = call_id(turn, index)
            every[identity] = plan
            given = arguments(plan, identity)
            made.append(ToolCall(identity, TOOL_NAMES[plan.kind], given, CancelSignal()))
            if plan.kind == "code":
                scripts[str(given["code"])] = script(plan, identity)
                for number, sub in enumerate(plan.program, start=1):
                    every[sub_id(identity, number)] = sub
        calls.append(tuple(made))
    return Drawn(session, tuple(calls), every, ScriptedCode(scripts))


@dataclass
class Process:
    """One process running the session's turns on a journal, the world and a crash point."""

    drawn: Drawn
    journal: MemoryJournal
    files: MemoryFileSystem
    crash_run: int | None = None
    """The run (counted over the process's runs, from 0) a `CrashAt` belongs to."""
    crash_at: CrashAt | None = None
    steps: list[int] | None = None
    """Each run's number of scheduler steps, when wanted."""

    def run(self, number: int, description: Description[JournaledBatch]) -> JournaledBatch:
        faults = [self.crash_at] if self.crash_at and number == self.crash_run else []
        interpreter = DeterministicInterpreter(
            self.drawn.session.seed + number,
            approvals=self.drawn.answer_first,
            faults=faults,
            files=self.files,
            code=self.drawn.engine,
            mortal=[self.journal],
        )
        try:
            return interpreter.run(description)
        finally:
            if self.steps is not None:
                self.steps.append(interpreter.trace[-1].step)

    def session(self) -> dict[str, tuple[ToolExecutionResult, str]]:
        """Every turn to its end; each call's last result and how it was first dealt with."""
        journaled = JournaledSession(self.journal)
        catalog = catalog_of()  # the leaves' memory (what was read) is the process's
        final: dict[str, tuple[ToolExecutionResult, str]] = {}
        runs = 0
        for calls in self.drawn.calls:
            batch = self.run(runs, journaled.execute(catalog, calls))
            runs += 1
            outcomes = batch.outcomes
            for _ in range(MAX_RESUMES):
                waiting = asks_of(calls, batch)
                if not waiting:
                    break
                answers = {call_id: self.drawn.answer_later(call_id) for call_id in waiting}
                batch = self.run(runs, journaled.resume(catalog, calls, answers))
                runs += 1
            assert not asks_of(calls, batch), batch.open_asks
            for call, result, outcome in zip(calls, batch.results, outcomes, strict=True):
                final[call.call_id] = (result, outcome)
        return final


def asks_of(calls: Sequence[ToolCall], batch: JournaledBatch) -> list[str]:
    """The call ids of the asks waiting on `calls` (or their programs' calls): a host answers the
    asks of the batch it runs (an ask of a later turn, left waiting by a crash, waits for its
    turn, or its call would run before the calls the crash-free session ran before it)."""
    ours = {call.call_id for call in calls}
    return [a.call_id for a in batch.open_asks if a.call_id.split(":code:")[0] in ours]


def durable(call_id: str, result: ToolExecutionResult) -> FrozenJson:
    """The durable projection of a result: what the journal keeps of it."""
    return ToolResultRecord.of(call_id, result).to_json()


def settled(records: Sequence[SessionRecord]) -> dict[str, DurableResult]:
    """Every call id the records settle for good (pending ones are not), with its result."""
    recovery = recover(records)
    ids = {record.call_id for record in records}
    found = {}
    for identity in ids:
        status = recovery.status(identity)
        if isinstance(status, Settled):
            found[identity] = status.result
    return found


def marks(files: MemoryFileSystem, plan: Plan, identity: str) -> int:
    """How many times the effect of the call `identity` is in the world."""
    snapshot = files.snapshot()
    match plan.kind:
        case "append" | "approved" | "ensure":
            return snapshot[f"{ROOT}/{LOGS[plan.choice]}"].decode().splitlines().count(identity)
        case "stamp":
            return snapshot.get(f"{OUTSIDE}/{identity}", b"").decode().count("stamped")
        case "write":
            return int(f"{ROOT}/written/{identity}.txt" in snapshot)
        case "write-gated":
            return int(f"{ROOT}/gated/{identity}.txt" in snapshot)
        case "edit":
            return snapshot[f"{ROOT}/{NOTES}"].decode().count(f"#{identity}#")
        case _:
            return 0


def is_in_doubt(result: DurableResult | None) -> bool:
    return (
        result is not None
        and result.error is not None
        and (result.error.info.code is ErrorCode.IN_DOUBT)
    )


CrashPoint = tuple[int | None, CrashAt | CrashAtAppend]
"""A crash point: a step of one run (numbered from 0), or an append to the journal (run None)."""


def step_points(steps: Sequence[int]) -> list[CrashPoint]:
    """Each step of each run of a session, as many as the crash-free runs took."""
    return [(run, CrashAt(step)) for run, count in enumerate(steps) for step in range(1, count + 1)]


def append_points(appends: int) -> list[CrashPoint]:
    """Each append of a session's journal, before and after its commit."""
    return [
        (None, CrashAtAppend(append, committed=committed))
        for append in range(1, appends + 1)
        for committed in (False, True)
    ]


def crashed(drawn: Drawn, run: int | None, point: CrashAt | CrashAtAppend) -> Process:
    """The process that dies at `point` (in run `run` for a step), on a fresh world."""
    if isinstance(point, CrashAtAppend):
        dying = Process(drawn, MemoryJournal(crash=point), world())
    else:
        dying = Process(drawn, MemoryJournal(), world(), crash_run=run, crash_at=point)
    try:
        dying.session()
    except Crashed:
        return dying
    raise AssertionError(f"the session ran to its end through {point}")


def check_marks(drawn: Drawn, files: MemoryFileSystem, final: Mapping[str, DurableResult]) -> None:
    """Each effectful call's mark: once after a success, never after another failure, at most
    once when IN_DOUBT (3)."""
    for identity, plan in drawn.plans.items():
        if plan.kind not in EFFECTFUL:
            continue
        count, result = marks(files, plan, identity), final.get(identity)
        if is_in_doubt(result):
            assert count <= 1, (identity, count)
        elif result is not None and result.error is None:
            assert count == 1, (identity, count, result)
        else:
            assert count == 0, (identity, count, result)


Finals = dict[str, tuple[ToolExecutionResult, str]]


def check_results(
    reference: Finals, recovered: Finals, ids: Collection[str], in_doubt: Collection[str]
) -> None:
    """The calls `ids` end with the crash-free results, unless they or their programs' calls
    were told they may have run."""
    for identity in ids:
        told = [i for i in in_doubt if i == identity or i.startswith(f"{identity}:code:")]
        if not told:
            live, expected = recovered[identity][0], reference[identity][0]
            assert durable(identity, live) == durable(identity, expected), identity


@dataclass(frozen=True, slots=True)
class Reference:
    """The session without a crash: the process, its results, its journal, its crash points."""

    process: Process
    results: Finals
    records: tuple[SessionRecord, ...]
    settled: Mapping[str, DurableResult]
    steps: tuple[int, ...]


def reference_of(drawn: Drawn) -> Reference:
    process = Process(drawn, MemoryJournal(), world(), steps=[])
    results = process.session()
    records = process.journal.records()
    assert process.steps is not None
    return Reference(process, results, records, settled(records), tuple(process.steps))


def recovered_after(
    drawn: Drawn,
    reference: Reference,
    run: int | None,
    point: CrashAt | CrashAtAppend,
    again: CrashAtAppend | None = None,
) -> set[str]:
    """Crash at `point`, recover (crashing again at `again` of the recovering process's appends,
    if it gets that far, then recovering once more) and check 1-5; give what happened."""
    happened = {f"crash: {type(point).__name__}"}
    dying = crashed(drawn, run, point)
    kept = dying.journal.records()
    whole = reference.records
    assert [r.to_json() for r in kept] == [r.to_json() for r in whole[: len(kept)]]  # 1
    files, journal = dying.files, dying.journal.survivor(crash=again)
    try:
        recovered = Process(drawn, journal, files).session()
    except Crashed:  # while recovering: what it settled stays settled
        happened.add("crashed again while recovering")
        kept = journal.records()
        journal = journal.survivor()
        recovered = Process(drawn, journal, files).session()
    after = journal.records()
    assert not recover(after).in_doubt()  # 2
    assert not recover(after).open_asks()
    final = settled(after)
    check_marks(drawn, files, final)  # 3
    first = settled(whole[: len(dying.journal.records())])
    for identity, result in settled(kept).items():  # 4
        assert final[identity] == result, identity
        if identity in first:
            assert result == reference.settled[identity], identity
        if identity in recovered:
            assert recovered[identity][1] == "replayed", identity
    check_results(reference.results, recovered, first.keys() & recovered.keys(), ())
    in_doubt = {identity for identity, result in final.items() if is_in_doubt(result)}
    happened |= {f"recovered: a call {outcome}" for _, outcome in recovered.values()}
    effects = {marks(files, drawn.plans[i], i) for i in in_doubt}
    happened |= {f"an IN_DOUBT call's effect is in the world {n} time(s)" for n in effects}
    took_effect = effects <= {1}
    edits = [i for i, plan in drawn.plans.items() if plan.kind == "edit"]
    if took_effect and all(final.get(i) == reference.settled.get(i) for i in edits):  # 5
        happened.add("recovered to the crash-free world")
        assert files.snapshot() == reference.process.files.snapshot()
        check_results(reference.results, recovered, recovered.keys(), in_doubt)
    return happened


@given(sessions, st.data())
def test_after_a_crash_and_recovery_every_effect_happened_once_or_the_model_was_told(
    session: Session, data: st.DataObject
) -> None:
    drawn = concrete(session)
    reference = reference_of(drawn)
    check_marks(drawn, reference.process.files, reference.settled)
    kinds = [step_points(reference.steps), append_points(len(reference.records))]
    points = data.draw(st.sampled_from(kinds), label="kind")
    run, point = points[data.draw(st.integers(0, len(points) - 1), label="crash point")]
    again = data.draw(
        st.none()
        | st.builds(CrashAtAppend, st.integers(1, len(reference.records) + 4), st.booleans()),
        label="crash while recovering",
    )
    for happened in sorted(recovered_after(drawn, reference, run, point, again)):
        event(happened)


def fixed(*turns: tuple[Plan, ...]) -> Session:
    return Session(turns, 7)


def once(
    kind: Kind, first: ApprovalReply = "allowed-once", final: ApprovalReply = "allowed-once"
) -> Plan:
    return Plan(kind, 0, first, final)


SWEPT: Final = (
    fixed((once("stamp"), once("stamp"), once("read"), once("stamp")), (once("append"),)),
    fixed(
        (once("append"), once("ensure"), once("read"), once("glob")),
        (once("approved", "deferred"),),
    ),
    fixed(
        (
            Plan(
                "code",
                0,
                "allowed-once",
                "allowed-once",
                (once("append"), once("approved", "deferred"), once("ensure")),
            ),
            once("approved", "deferred", "rejected"),
            once("grep"),
        ),
        (once("read"), once("edit"), once("write-gated", "deferred")),
    ),
)
"""Sessions swept at every crash point: deferred asks at the top and in a program, appends of
both kinds, the read-only leaves, an edit after its read."""


@pytest.mark.parametrize("session", SWEPT)
def test_every_crash_point_of_a_few_sessions_recovers(session: Session) -> None:
    drawn = concrete(session)
    reference = reference_of(drawn)
    points = [*step_points(reference.steps), *append_points(len(reference.records))]
    seen: set[str] = set()
    for run, point in points:
        seen |= recovered_after(drawn, reference, run, point)
    assert {"recovered: a call in-doubt", "recovered: a call rerun"} <= seen
    assert "recovered to the crash-free world" in seen
