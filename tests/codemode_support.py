"""What the end-to-end Code Mode tests share: one `run_code` call under any interpreter, with
Monty as the runtime's engine, and what it left (its result, its records, the defects reported).

Records are compared in program order: sub-calls gathered as parallel-safe run at once, and each
writes its `tool/call` before it runs and its `tool/code-dispatch` once it settles, so their
records interleave as the interpreter scheduled them (the deterministic interpreter's seed picks
an order; sync runs them one after another), as a native batch's do. `in_program_order` puts each
run of sub-call records in call-number order (stable, so each call's own records keep theirs);
exclusive calls, alone by the rules, are checked to be so by `sub_call_ledger`.

No helper measures time: a program that must be stopped is bounded by its engine's limits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, final

from toolfx.core import (
    CancelSignal,
    Catalog,
    CodeEngine,
    SessionRecord,
    ToolCall,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    execute,
)
from toolfx.core.json import FrozenJson
from toolfx.core.runtime import ApprovalReply, ApprovalRequest
from toolfx.interpreters import (
    AnyioRuntime,
    DeterministicInterpreter,
    SyncRuntime,
    run_anyio,
    run_sync,
)
from toolfx.interpreters.testing import TraceEvent

__all__ = [
    "INTERPRETERS",
    "Interpreter",
    "Ran",
    "failure_of",
    "in_program_order",
    "run_code_under",
    "run_everywhere",
    "runs_everywhere",
    "sub_call_ledger",
    "value_of",
]

Interpreter = Literal["sync", "asyncio", "trio", "deterministic"]
INTERPRETERS: tuple[Interpreter, ...] = ("sync", "asyncio", "trio", "deterministic")

Approvals = Callable[[ApprovalRequest], ApprovalReply]


@final
@dataclass(frozen=True, slots=True)
class Ran:
    """One `run_code` call's outcome, its records as JSON, the defects and the trace."""

    result: ToolExecutionResult
    records: tuple[FrozenJson, ...]
    defects: tuple[str, ...]
    trace: tuple[TraceEvent, ...] = field(default=(), compare=False)
    """The deterministic interpreter's trace (empty under the others)."""


def run_code_under(
    interpreter: Interpreter,
    catalog: Catalog,
    code: str,
    *,
    engine: CodeEngine | None = None,
    approvals: Approvals | None = None,
    signal: CancelSignal | None = None,
    call_id: str = "c1",
) -> Ran:
    """Run `code` through `run_code` of `catalog` under `interpreter` (the default engine,
    Monty's, unless `engine` is given), keeping every record the call wrote."""
    records: list[SessionRecord] = []
    defects: list[str] = []
    call = ToolCall(call_id, "run_code", {"code": code}, signal or CancelSignal())
    description = execute(catalog, call, records.append)

    def report(error: BaseException, where: str) -> None:
        defects.append(where)

    trace: tuple[TraceEvent, ...] = ()
    result: ToolExecutionResult
    match interpreter:
        case "sync":
            result = run_sync(description, SyncRuntime(approvals, report, code=engine))
        case "asyncio" | "trio":
            result = run_anyio(
                description, interpreter, AnyioRuntime(approvals, report, code=engine)
            )
        case "deterministic":
            deterministic = DeterministicInterpreter(seed=3, approvals=approvals, code=engine)
            result = deterministic.run(description)
            defects.extend(where for _, where in deterministic.reported)
            trace = deterministic.trace
    return Ran(result, tuple(record.to_json() for record in records), tuple(defects), trace)


def runs_everywhere(
    catalog: Catalog | Callable[[], Catalog],
    code: str,
    *,
    engine: CodeEngine | None = None,
    approvals: Approvals | None = None,
) -> dict[Interpreter, Ran]:
    """Run `code` under each interpreter (a fresh catalog each, if given a factory); the runs
    must agree, in program order, on the result, the records and the defects."""
    runs = {
        name: run_code_under(
            name,
            catalog() if callable(catalog) else catalog,
            code,
            engine=engine,
            approvals=approvals,
        )
        for name in INTERPRETERS
    }
    expected = in_program_order(runs["sync"])
    for name, ran in runs.items():
        ordered = in_program_order(ran)
        for part, mine, theirs in (
            ("result", ordered.result, expected.result),
            ("records", ordered.records, expected.records),
            ("defects", ordered.defects, expected.defects),
        ):
            assert mine == theirs, f"{name}'s {part} are not sync's:\n{_short(mine, theirs)}"
    return runs


def _short(mine: object, theirs: object) -> str:
    """Two values that differ, each cut to a readable length."""
    return f"{repr(mine)[:3000]}\n!=\n{repr(theirs)[:3000]}"


def run_everywhere(
    catalog: Catalog | Callable[[], Catalog],
    code: str,
    *,
    engine: CodeEngine | None = None,
    approvals: Approvals | None = None,
) -> Ran:
    """`runs_everywhere`, giving the sync interpreter's run."""
    return runs_everywhere(catalog, code, engine=engine, approvals=approvals)["sync"]


def in_program_order(ran: Ran) -> Ran:
    """`ran` with each run of consecutive sub-call records sorted by call number (stable)."""
    records: list[FrozenJson] = []
    run: list[FrozenJson] = []
    for record in (*ran.records, None):
        number = _sub_call_number(record)
        if number is not None:
            run.append(record)
            continue
        records += sorted(run, key=_sub_call_number)  # type: ignore[arg-type]
        run = []
        if record is not None:
            records.append(record)
    return Ran(ran.result, tuple(records), ran.defects, ran.trace)


def _sub_call_number(record: FrozenJson) -> int | None:
    """The `n` of a sub-call record's `<outer>:code:<n>` id, None for any other record."""
    if not isinstance(record, dict):
        return None
    call_id = record.get("callId")
    if not isinstance(call_id, str) or ":code:" not in call_id:
        return None
    return int(call_id.rsplit(":code:", 1)[1])


def value_of(ran: Ran) -> object:
    """The program's value (the run must have succeeded)."""
    assert isinstance(ran.result, ToolExecutionSuccess), ran.result
    return ran.result.value


def failure_of(ran: Ran) -> ToolExecutionFailure:
    """The run's failure (the run must have failed)."""
    assert isinstance(ran.result, ToolExecutionFailure), ran.result
    return ran.result


def sub_call_ledger(
    ran: Ran, outer: str = "c1", exclusive: frozenset[str] = frozenset()
) -> list[tuple[str, str]]:
    """The sub-calls' records in order, as (event, call id). Checks each `tool/call` of a
    sub-call is followed by exactly one `tool/code-dispatch` with its id, and nothing else;
    and that each call of a tool named in `exclusive` ran alone (nothing between the two)."""
    ledger: list[tuple[str, str]] = []
    names: dict[str, str] = {}
    for record in ran.records:
        assert isinstance(record, dict)
        call_id, event, name = record["callId"], record["event"], record.get("name")
        assert isinstance(call_id, str)
        assert isinstance(event, str)
        if call_id != outer:
            assert isinstance(name, str)
            ledger.append((event, call_id))
            names[call_id] = name
    opened = [call_id for event, call_id in ledger if event == "tool/call"]
    settled = [call_id for event, call_id in ledger if event == "tool/code-dispatch"]
    assert sorted(opened) == sorted(settled), ledger
    assert len(set(opened)) == len(opened), ledger
    assert {event for event, _ in ledger} <= {"tool/call", "tool/code-dispatch"}, ledger
    for call_id in opened:
        first = ledger.index(("tool/call", call_id))
        last = ledger.index(("tool/code-dispatch", call_id))
        assert last > first, ledger
        if names[call_id] in exclusive:
            assert last == first + 1, f"{call_id} did not run alone: {ledger}"
    return ledger
