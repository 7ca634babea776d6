"""Crash faults: `CrashAt(step)`, a `MemoryJournal`'s `CrashAtAppend`, and what survives a crash.

A crash ends the run with `Crashed`; the journals mortal to the interpreter die before anything
else runs (so what the abandoned tasks' cleanup writes is lost, as it is when a process is
killed); the in-memory file system keeps every effect made before; the same seed and crash point
give the same trace. The in-doubt window (a body's effect made, its `tool/result` not committed)
is only reached by a crash at the journal's append: a body's last file operation and the commit
of its result happen in one scheduler step.
"""

from __future__ import annotations

import functools

import pytest

from toolfx.core.journal import FollowedJournal, InDoubt, JournaledSession, Settled, recover
from toolfx.core.pipeline import ToolCall
from toolfx.core.records import SessionRecord, ToolCallRecord, ToolResultRecord
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import CancelSignal, Description, Runtime
from toolfx.core.tools import ErrorCode, ToolExecutionFailure, ToolRunContext, failed, tool
from toolfx.interpreters.testing import (
    CrashAt,
    CrashAtAppend,
    Crashed,
    DeterministicInterpreter,
    MemoryFileSystem,
    MemoryJournal,
)

SEEDS = range(6)


def record(name: str) -> ToolCallRecord:
    return ToolCallRecord(name, name, "work", {"name": name})


def ids(journal: MemoryJournal) -> list[str]:
    return [r.call_id for r in journal.records() if isinstance(r, ToolCallRecord)]


async def worker(runtime: Runtime, journal: MemoryJournal, name: str) -> None:
    """Three rounds of: a record, then a file; a record again when it is closed or fails."""
    try:
        for n in range(3):
            journal.append(record(f"{name}{n}"))
            await runtime.files.write_bytes(f"/w/{name}{n}", b"x", within="/")
    finally:
        journal.append(record(f"{name}-cleanup"))


def two_workers(journal: MemoryJournal) -> Description[str]:
    async def program(runtime: Runtime) -> str:
        thunks = [functools.partial(worker, runtime, journal, name) for name in "ab"]
        await runtime.gather(thunks, 2)
        return "finished"

    return Description(program)


def crash_free_steps(seed: int) -> int:
    interpreter = DeterministicInterpreter(seed, files=MemoryFileSystem.from_files({"/w/k": ""}))
    assert interpreter.run(two_workers(MemoryJournal())) == "finished"
    return interpreter.trace[-1].step


@pytest.mark.parametrize("seed", SEEDS)
def test_a_crash_at_a_step_ends_the_run_and_the_journal_keeps_only_what_came_before(
    seed: int,
) -> None:
    whole = MemoryJournal()
    DeterministicInterpreter(seed, files=MemoryFileSystem.from_files({"/w/k": ""})).run(
        two_workers(whole)
    )
    for step in range(1, crash_free_steps(seed) + 1):
        journal, files = MemoryJournal(), MemoryFileSystem.from_files({"/w/k": ""})
        interpreter = DeterministicInterpreter(
            seed, faults=[CrashAt(step)], files=files, mortal=[journal]
        )
        with pytest.raises(Crashed) as crashed:
            interpreter.run(two_workers(journal))
        assert (crashed.value.step, crashed.value.cause) == (step, f"CrashAt({step})")
        assert journal.death == f"CrashAt({step})"
        kept = ids(journal)
        assert kept == ids(whole)[: len(kept)]  # the same run up to the crash, nothing after
        crash = next(i for i, e in enumerate(interpreter.trace) if e.kind == "fault")
        finished = sum(e.kind == "done" for e in interpreter.trace[:crash])
        cleanups = sum(name.endswith("-cleanup") for name in kept)
        assert cleanups == finished  # a worker closed after the death cleans up in vain
        assert interpreter.trace[crash].detail == f"crash: CrashAt({step})"
        assert {e.kind for e in interpreter.trace[crash + 1 :]} <= {"abandoned"}
        assert all(e.step < step for e in interpreter.trace[:crash])  # step `step` never ran
        written = sum(e.kind == "files" for e in interpreter.trace)
        assert len(files.snapshot()) == 1 + written  # the world keeps every effect made


@pytest.mark.parametrize("seed", SEEDS)
def test_the_same_seed_and_crash_step_give_the_same_trace_and_journal(seed: int) -> None:
    step = crash_free_steps(seed) // 2

    def crashed() -> tuple[object, ...]:
        journal = MemoryJournal()
        interpreter = DeterministicInterpreter(
            seed,
            faults=[CrashAt(step)],
            files=MemoryFileSystem.from_files({"/w/k": ""}),
            mortal=[journal],
        )
        with pytest.raises(Crashed):
            interpreter.run(two_workers(journal))
        return interpreter.trace, journal.records()

    assert crashed() == crashed()


@pytest.mark.parametrize("committed", [True, False])
def test_a_journal_crashing_at_an_append_takes_the_process_and_drops_every_later_write(
    committed: bool,
) -> None:
    whole = MemoryJournal()
    DeterministicInterpreter(1, files=MemoryFileSystem.from_files({"/w/k": ""})).run(
        two_workers(whole)
    )
    for append in range(1, len(whole.records()) + 1):
        journal = MemoryJournal(crash=CrashAtAppend(append, committed=committed))
        files = MemoryFileSystem.from_files({"/w/k": ""})
        interpreter = DeterministicInterpreter(1, files=files, mortal=[journal])
        with pytest.raises(Crashed) as crashed:
            interpreter.run(two_workers(journal))
        moment = "after" if committed else "before"
        assert crashed.value.cause == (
            f"append {append} to the journal (`tool/call`), {moment} its commit"
        )
        assert ids(journal) == ids(whole)[: append if committed else append - 1]
        trace = interpreter.trace
        crash = next(i for i, e in enumerate(trace) if e.kind == "fault")
        assert {e.kind for e in trace[crash + 1 :]} <= {"abandoned"}
        assert crashed.value.step == trace[crash].step


def test_a_store_dying_in_the_last_step_still_takes_the_process() -> None:
    journal = MemoryJournal(crash=CrashAtAppend(1, committed=True))

    async def program(runtime: Runtime) -> str:
        journal.append(record("only"))
        return "finished"  # no reschedule point after the death: the step ends with the program

    with pytest.raises(Crashed):
        DeterministicInterpreter(mortal=[journal]).run(Description(program))
    assert ids(journal) == ["only"]


def test_a_dead_journal_drops_appends_keeps_its_records_and_its_survivor_lives() -> None:
    journal = MemoryJournal()
    journal.append(record("kept"))
    journal.die("killed by the test")
    journal.die("killed again")
    journal.append(record("lost"))
    assert (ids(journal), journal.death) == (["kept"], "killed by the test")
    survivor = journal.survivor(crash=CrashAtAppend(2))
    assert survivor.death is None
    survivor.append(record("next"))
    survivor.append(record("dies here"))
    survivor.append(record("after"))
    assert ids(survivor) == ["kept", "next"]
    assert ids(journal) == ["kept"]  # each process's journal is its own object
    assert survivor.death == "append 2 to the journal (`tool/call`), before its commit"


def test_records_come_back_from_their_wire_form() -> None:
    journal = MemoryJournal()
    originals: list[SessionRecord] = [
        ToolCallRecord("c1", "c1", "work", {"deep": [1, "two", None]}, "agent", None, "h"),
        ToolResultRecord.of("c1", failed(ErrorCode.DENIED, "not today")),
    ]
    for original in originals:
        journal.append(original)
    assert journal.records() == tuple(originals)


def test_an_interpreter_refuses_to_run_on_a_dead_store() -> None:
    journal = MemoryJournal()
    journal.die("crashed")

    async def program(runtime: Runtime) -> None:
        raise AssertionError("nothing runs in a dead process")

    with pytest.raises(ValueError, match=r"dead \(crashed\).*survivor"):
        DeterministicInterpreter(mortal=[journal]).run(Description(program))


def test_crash_append_points_count_from_one() -> None:
    with pytest.raises(ValueError, match="from 1"):
        CrashAtAppend(0)


# A journaled session: the batch ledger's ABORTED records die with the process, and the in-doubt
# window between a body's effect and its `tool/result`.


@tool
async def append(path: str, line: str, ctx: ToolRunContext[None]) -> int:
    """Append `line` to the file at `path`; give how many lines it then has."""
    files = ctx.runtime.files
    old = (await files.read_bytes(path, within="/")).decode()
    new = old + line + "\n"
    await files.write_bytes(path, new.encode(), within="/")
    return new.count("\n")


@tool
async def nap(ctx: ToolRunContext[None]) -> str:
    """Sleep a minute of virtual time."""
    await ctx.runtime.sleep(60)
    return "rested"


def catalog() -> Catalog:
    location = Location()
    location.register(append)
    location.register(nap)
    return location.catalog()


def appending(call_id: str = "c1") -> ToolCall:
    return ToolCall(call_id, "append", {"path": "/w/log", "line": "one"}, CancelSignal())


@pytest.mark.parametrize("mortal", [True, False])
def test_an_interrupted_batch_writes_no_aborted_result_to_a_dead_journal(mortal: bool) -> None:
    journal = MemoryJournal()
    session = JournaledSession(journal)
    interpreter = DeterministicInterpreter(faults=[CrashAt(2)], mortal=[journal] if mortal else [])
    with pytest.raises(Crashed):  # at step 2 the call sleeps
        interpreter.run(session.execute(catalog(), [ToolCall("n1", "nap", {}, CancelSignal())]))
    events = [r.event for r in journal.records()]
    if not mortal:  # a journal that outlives the crash takes the cleanup's ABORTED result
        assert events == ["tool/call", "tool/result"]
        return
    assert events == ["tool/call"]
    assert isinstance(recover(journal.records()).status("n1"), InDoubt)


def window(journal: MemoryJournal, files: MemoryFileSystem) -> bool:
    """Whether the crash left `c1` in the in-doubt window: its line written, no result kept."""
    effect = files.snapshot()["/w/log"] == b"one\n"
    return effect and isinstance(recover(journal.records()).status("c1"), InDoubt)


def crashed_run(journal: MemoryJournal, files: MemoryFileSystem, *, step: int | None) -> None:
    faults = [] if step is None else [CrashAt(step)]
    interpreter = DeterministicInterpreter(faults=faults, files=files, mortal=[journal])
    with pytest.raises(Crashed):
        interpreter.run(JournaledSession(journal).execute(catalog(), [appending()]))


def test_the_in_doubt_window_is_reached_by_a_crash_before_the_result_commits_not_by_a_step() -> (
    None
):
    whole, files = MemoryJournal(), MemoryFileSystem.from_files({"/w/log": ""})
    interpreter = DeterministicInterpreter(files=files)
    interpreter.run(JournaledSession(whole).execute(catalog(), [appending()]))
    assert [r.event for r in whole.records()] == ["tool/call", "tool/result"]
    reached = []
    for step in range(1, interpreter.trace[-1].step + 1):
        journal, files = MemoryJournal(), MemoryFileSystem.from_files({"/w/log": ""})
        crashed_run(journal, files, step=step)
        reached.append(window(journal, files))
    assert not any(reached)  # the write and the commit of its result happen in one step
    journal = MemoryJournal(crash=CrashAtAppend(2, committed=False))
    files = MemoryFileSystem.from_files({"/w/log": ""})
    crashed_run(journal, files, step=None)
    assert window(journal, files)


def test_after_a_crash_in_the_window_the_model_is_told_and_nothing_runs_twice() -> None:
    journal = MemoryJournal(crash=CrashAtAppend(2, committed=False))
    files = MemoryFileSystem.from_files({"/w/log": ""})
    crashed_run(journal, files, step=None)
    survivor = journal.survivor()
    session = JournaledSession(survivor)
    interpreter = DeterministicInterpreter(files=files, mortal=[survivor])
    again = interpreter.run(session.execute(catalog(), [appending()]))
    assert again.outcomes == ("in-doubt",)
    (result,) = again.results
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.info.code is ErrorCode.IN_DOUBT
    assert files.snapshot()["/w/log"] == b"one\n"
    assert isinstance(recover(survivor.records()).status("c1"), Settled)


def test_a_store_dying_in_a_step_that_then_fails_the_run_ends_it_with_the_crash() -> None:
    journal, other = MemoryJournal(crash=CrashAtAppend(1)), MemoryJournal()

    async def program(runtime: Runtime) -> None:
        journal.append(record("dies here"))
        raise KeyboardInterrupt  # the process was dead before it could be interrupted

    with pytest.raises(Crashed) as crashed:
        DeterministicInterpreter(mortal=[journal, other]).run(Description(program))
    assert isinstance(crashed.value.__cause__, KeyboardInterrupt)
    assert other.death == journal.death  # every mortal store dies with the process


def test_cleanup_of_an_abandoned_task_cannot_touch_the_world() -> None:
    files = MemoryFileSystem.from_files({"/w/k": ""})

    async def program(runtime: Runtime) -> None:
        try:
            await runtime.sleep(60)
        finally:  # runs when the crashed run closes the task: its file operation cannot
            await runtime.files.write_bytes("/w/cleaned", b"x", within="/")

    with pytest.raises(Crashed):
        DeterministicInterpreter(faults=[CrashAt(2)], files=files).run(Description(program))
    assert sorted(files.snapshot()) == ["/w/k"]


def test_a_memory_journal_is_followed_from_any_count() -> None:
    journal = MemoryJournal()
    assert isinstance(journal, FollowedJournal)
    records = [ToolCallRecord(f"c{n}", f"c{n}", "t", {"n": n}) for n in range(4)]
    for record in records:
        journal.append(record)
    assert journal.records() == tuple(records)
    assert [journal.records_after(count) for count in (0, 2, 4, 9)] == [
        tuple(records),
        tuple(records[2:]),
        (),
        (),
    ]
    journal.die("test")
    journal.append(ToolCallRecord("late", "late", "t", {}))
    assert journal.records_after(3) == tuple(records[3:])
