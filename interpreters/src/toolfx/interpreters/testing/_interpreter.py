"""The deterministic interpreter: runs a description on a seeded scheduler with a virtual clock.

Nothing real happens to time: a sleep is a timer on the virtual clock, and when no task can run
the clock jumps to the next timer, so an hour-long sleep finishes at once and `now()` advances by
exactly an hour. Tasks interleave only at capabilities (checkpoint, sleep, gather, approve, files);
which runnable task goes next is chosen by `random.Random(seed)`. Approvals come from a script
or a callback, faults (`RaiseAt`, `RaiseInto`, `HangAt`, `CancelAt`, `CrashAt`) are injected at
numbered steps, and everything is recorded in `trace`: the same seed and description give the
same trace.

Rules, as the runtime gives them to the program:

- `gather` runs each thunk in a child task, at most `limit` at once (a rolling pool: a new
  child starts when one finishes), and gives the results in the thunks' order. When a child
  fails, or an error is thrown into the gathering task while it waits (`RaiseInto`), no further
  thunk is started (those are abandoned: never called), the children already running are
  awaited to the end, and then the first failure is raised. An interrupt thrown into it leaves
  at once (the run ends with it).
- `deadline` runs the thunk in the calling task and sets a timer at now + seconds; if the timer
  fires while the thunk runs, it sets the signal with `deadline_reason(seconds)`. The thunk is
  always awaited. Timers due at the same virtual time fire in the order they were set.
- `run_blocking` calls the function inline: it takes no virtual time and is no reschedule point.
- `files` is a `MemoryFileSystem` (a fresh empty one each run, its mtimes from the virtual clock,
  unless one is given to keep across runs); each operation is a reschedule point, then happens
  at once and is recorded in the trace (`files`).
- `processes` runs the scripts of the `ScriptedProcesses` table given (none by default): each
  run takes its duration, its timeout and its kill grace in virtual time, as a sleep on the
  signal, and is recorded in the trace (`process`); an unscripted command is a `ProcessError`.
- `spills` keeps each cut output's whole text in memory (a `MemorySpills`, fresh each run,
  unless a store is given); keeping one takes no virtual time and is no reschedule point.
- `approve` is a reschedule point; the reply is `cancelled` if the signal is set by then, else
  the next scripted reply (`unavailable` once the script is exhausted, or with no approvals).
- An exception from a task other than the main one reaches the program only through `gather`;
  an interrupt (a BaseException that is not an Exception) from any task ends the run at once.
- A yield that is not one of this interpreter's traps (an asyncio future, a trio checkpoint)
  ends the run with `DeterministicForeignAwaitError`. When nothing can run, no timer is pending
  and the program is unfinished, the run ends with `Deadlock`. Either way every unfinished task
  is closed first.
- A watcher that raises when a deadline or a `CancelAt` sets a signal is reported (`reported`
  and the trace), and the run goes on.
- A crash (`CrashAt(step)`, or one of the `mortal` stores dying on its own, as a `MemoryJournal`
  does at its `CrashAtAppend`) ends the run with `Crashed`: every mortal store dies first (it
  keeps what it committed and drops every later write), then the unfinished tasks are closed
  (their cleanup writes to dead stores only) and nothing runs again. A store that dies in the
  middle of a step takes the process at the end of that step: the running task goes on only to
  its next reschedule point, which every effect on the world (files, processes) waits at first
  (with several mortal stores, what it writes to the others in between is kept).
  The file system is the world and keeps what was done to it; the survivors of a crash are a
  new `DeterministicInterpreter` over the same `files` and the stores' survivors
  (`MemoryJournal.survivor`).

The program runs on the calling thread; signals must be set from it (by the program, a timer
or a `CancelAt` fault), never from another thread.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Final, TypeVar, final

from toolfx.core.runtime import (
    CALLER_CANCELLED,
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    CancelSignal,
    CodeEngine,
    Description,
    FileSystem,
    ProcessRunner,
    ProgressEvent,
    ProgressReporter,
    RemoteRunner,
    Runtime,
    SpillStore,
    deadline_reason,
)
from toolfx.interpreters.codemode import default_engine
from toolfx.interpreters.testing._faults import Fault, HangAt, Mortal, RaiseAt
from toolfx.interpreters.testing._files import TracedFileSystem
from toolfx.interpreters.testing._memory_files import MemoryFileSystem
from toolfx.interpreters.testing._memory_spills import MemorySpills
from toolfx.interpreters.testing._scheduler import Scheduler
from toolfx.interpreters.testing._scripted_processes import ScriptedProcesses
from toolfx.interpreters.testing._trace import TraceEvent
from toolfx.interpreters.testing._traps import Approve, Checkpoint, Join, Sleep

__all__ = ["DeterministicInterpreter", "DeterministicRuntime", "Reported"]

T = TypeVar("T")

Approvals = Sequence[ApprovalReply] | Callable[[ApprovalRequest], ApprovalReply] | None
"""Scripted approval replies in order, a callback that answers each request, or none."""

Reported = tuple[BaseException, str]
"""A contained defect the program reported, and where it happened."""

UNAVAILABLE: Final[ApprovalReply] = "unavailable"
"""The reply when no approval service answers."""


@final
class DeterministicRuntime(Runtime):
    """Capabilities on one run's scheduler: virtual time, seeded interleavings, scripted replies."""

    __slots__ = (
        "_approvals",
        "_code",
        "_files",
        "_on_progress",
        "_processes",
        "_remote",
        "_scheduler",
        "_spills",
    )

    def __init__(
        self,
        scheduler: Scheduler,
        approvals: Callable[[ApprovalRequest], ApprovalReply],
        files: FileSystem,
        *,
        processes: ScriptedProcesses | None = None,
        spills: SpillStore | None = None,
        progress: ProgressReporter | None = None,
        code: CodeEngine | None = None,
        remote: RemoteRunner | None = None,
    ) -> None:
        self._scheduler = scheduler
        self._approvals = approvals
        self._on_progress = progress
        self._files = TracedFileSystem(files, scheduler)
        self._processes = (ScriptedProcesses() if processes is None else processes).on(scheduler)
        self._spills: SpillStore = MemorySpills() if spills is None else spills
        self._code: CodeEngine = default_engine() if code is None else code
        self._remote = remote

    def now(self) -> float:
        """The virtual time in seconds: 0 when the run starts, moved only by timers."""
        return self._scheduler.now

    async def sleep(self, seconds: float, signal: CancelSignal | None = None) -> None:
        """A timer on the virtual clock; a signal set first wakes the sleeper with `Cancelled`."""
        if signal is not None and signal.is_cancelled():
            raise Cancelled(signal.reason or CALLER_CANCELLED)
        await Sleep(seconds, signal)

    async def checkpoint(self) -> None:
        """A reschedule point: the seed picks which runnable task goes next."""
        await Checkpoint()

    async def gather(self, thunks: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
        """Child tasks, at most `limit` at once, results in order; see the module for failures."""
        if limit < 1:
            raise ValueError(f"gather needs a limit of at least 1, not {limit!r}")
        scheduler = self._scheduler
        parent = scheduler.current
        results: dict[int, T] = {}
        running: dict[int, int] = {}  # task id -> thunk index
        started = 0
        failure: BaseException | None = None
        while running or (failure is None and started < len(thunks)):
            while failure is None and started < len(thunks) and len(running) < limit:
                child = _child(thunks[started], started, results)
                running[scheduler.spawn(child, f"gather[{started}] of task {parent}")] = started
                started += 1
            try:
                finished = await Join(tuple(running))
            except Exception as thrown:  # a fault thrown into this task: the children still finish
                if failure is None:
                    failure = thrown
                continue
            del running[finished]
            error = scheduler.reap(finished)
            if failure is None:
                failure = error
        if failure is not None:
            raise failure
        return [results[index] for index in range(len(thunks))]

    async def deadline(
        self, seconds: float, signal: CancelSignal, thunk: Callable[[], Awaitable[T]]
    ) -> T:
        """Run `thunk` here; a timer at now + `seconds` sets `signal` if it is still running."""
        scheduler = self._scheduler
        owner = scheduler.current
        reason = deadline_reason(seconds)

        def expire() -> None:
            scheduler.record("deadline", f"fired: {reason}", task=owner)
            scheduler.cancel(signal, reason, "a deadline's signal")

        scheduler.record("deadline", f"{seconds:g}s, until t={scheduler.now + seconds:g}s")
        stop = scheduler.call_later(seconds, expire)
        try:
            return await thunk()
        finally:
            stop()

    async def run_blocking(self, function: Callable[[], T]) -> T:
        """Call `function` inline: it takes no virtual time."""
        return function()

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """A reschedule point, then `cancelled` if `signal` is set, else the scripted reply."""
        summary = f"{request.tool} for {request.agent or '-'} ({request.call_id})"
        if not signal.is_cancelled():
            await Approve(summary, signal)
        reply = "cancelled" if signal.is_cancelled() else self._approvals(request)
        self._scheduler.record("approve", f"{summary} -> {reply}")
        return reply

    def progress(self, event: ProgressEvent) -> None:
        """Record a call's progress in the trace and pass it to the `progress` reporter, if any."""
        total = "" if event.total is None else f"/{event.total:g}"
        self._scheduler.record("progress", f"{event.call_id} {event.progress:g}{total}")
        if self._on_progress is not None:
            self._on_progress(event)

    def report(self, error: BaseException, where: str) -> None:
        """Record a contained defect in the trace and in the interpreter's `reported`."""
        self._scheduler.report(error, where)

    @property
    def files(self) -> FileSystem:
        """The run's file system: each operation a reschedule point, recorded in the trace."""
        return self._files

    @property
    def processes(self) -> ProcessRunner:
        """The run's process table: scripted commands on the virtual clock, in the trace."""
        return self._processes

    @property
    def spills(self) -> SpillStore:
        """The run's spill store (a `MemorySpills` unless one is given)."""
        return self._spills

    @property
    def code(self) -> CodeEngine:
        """The Code Mode engine given, else Monty's when installed (`default_engine`)."""
        return self._code

    @property
    def remote(self) -> RemoteRunner | None:
        """The remote runner given (None: every body runs here)."""
        return self._remote


async def _child(thunk: Callable[[], Awaitable[T]], index: int, results: dict[int, T]) -> None:
    results[index] = await thunk()


@final
class DeterministicInterpreter:
    """Runs descriptions on a seeded scheduler and a virtual clock; scripted approvals, faults.

    Each `run` starts afresh: the clock at 0, the generator at `seed`, the approval script at its
    first reply, the fault steps counted from 1, an empty file system unless `files` is given
    (then each run sees what the runs before it wrote), and an empty `MemorySpills` unless
    `spills` is given (read its `texts` in tests). `trace` and `reported` describe the latest run.
    `wrap`, if given, is applied to each run's `DeterministicRuntime` and the description runs on
    what it returns (a tracing or fault-injecting `DelegatingRuntime` around it). `mortal` are the
    stores that die with the process when a run crashes (see the module); a run refuses to start
    once one of them is dead (a dead store belongs to a crashed process: run on its survivor).
    """

    __slots__ = (
        "_approvals",
        "_code",
        "_faults",
        "_files",
        "_mortal",
        "_processes",
        "_progress",
        "_remote",
        "_reported",
        "_seed",
        "_spills",
        "_trace",
        "_wrap",
    )

    def __init__(
        self,
        seed: int = 0,
        approvals: Approvals = None,
        faults: Sequence[Fault] = (),
        files: MemoryFileSystem | None = None,
        processes: ScriptedProcesses | None = None,
        *,
        spills: SpillStore | None = None,
        progress: ProgressReporter | None = None,
        wrap: Callable[[Runtime], Runtime] | None = None,
        code: CodeEngine | None = None,
        mortal: Sequence[Mortal] = (),
        remote: RemoteRunner | None = None,
    ) -> None:
        if isinstance(approvals, str):
            raise TypeError("approvals must be a sequence of replies, not one reply")
        stops = [f.step for f in faults if isinstance(f, RaiseAt | HangAt)]
        if len(stops) != len(set(stops)):
            raise ValueError("at most one RaiseAt or HangAt per step")
        if any(f.step < 1 for f in faults):
            raise ValueError("fault steps count scheduler steps from 1")
        self._seed = seed
        self._approvals = approvals
        self._faults = tuple(faults)
        self._files = files
        self._processes = ScriptedProcesses() if processes is None else processes
        self._spills = spills
        self._progress = progress
        self._wrap = wrap
        self._code = code
        self._remote = remote
        self._mortal = tuple(mortal)
        self._trace: tuple[TraceEvent, ...] = ()
        self._reported: tuple[Reported, ...] = ()

    @property
    def trace(self) -> tuple[TraceEvent, ...]:
        """What the latest run did, step by step."""
        return self._trace

    @property
    def reported(self) -> tuple[Reported, ...]:
        """The defects the latest run reported through `Runtime.report`."""
        return self._reported

    def run(self, description: Description[T]) -> T:
        """Run `description` to completion; give its result or raise what it raised (`Crashed` if
        the process dies)."""
        dead = [mortal.death for mortal in self._mortal if mortal.death is not None]
        if dead:
            raise ValueError(
                f"a mortal store of this interpreter is dead ({dead[0]}): its process crashed,"
                " so run a new interpreter on the store's survivor"
            )
        scheduler = Scheduler(self._seed, self._faults, self._mortal)
        files = MemoryFileSystem(lambda: scheduler.now) if self._files is None else self._files
        runtime: Runtime = DeterministicRuntime(
            scheduler,
            _answers(self._approvals),
            files,
            processes=self._processes,
            spills=self._spills,
            code=self._code,
            progress=self._progress,
            remote=self._remote,
        )
        if self._wrap is not None:
            runtime = self._wrap(runtime)
        try:
            return scheduler.run(description.program(runtime))
        finally:
            self._trace = scheduler.trace
            self._reported = scheduler.reported


def _answers(approvals: Approvals) -> Callable[[ApprovalRequest], ApprovalReply]:
    if approvals is None:
        return lambda request: UNAVAILABLE
    if isinstance(approvals, Sequence):
        replies = iter(tuple(approvals))
        return lambda request: next(replies, UNAVAILABLE)
    return approvals
