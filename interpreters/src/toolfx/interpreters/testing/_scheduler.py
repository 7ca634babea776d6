"""The deterministic scheduler: tasks, traps, a virtual clock, injected faults and the trace.

This module owns every yield to the runner (trio's rule). A capability suspends by awaiting a
trap, a small frozen request whose `__await__` yields the trap itself; the scheduler reads it,
reschedules or parks the task, and later resumes it with a value or an exception. Before each
step it fires the timers that are due; when nothing can run it moves the virtual clock to the
next timer (it never sleeps, and uses no thread). Which runnable task runs next is chosen by a
`random.Random(seed)`, so one seed gives one interleaving and one trace.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar, assert_never, cast, final

from toolfx.core.runtime import CALLER_CANCELLED, Cancelled, CancelSignal
from toolfx.core.tools import CALL_FAILURES
from toolfx.interpreters._foreign import truncated
from toolfx.interpreters.testing._clock import VirtualClock, delay
from toolfx.interpreters.testing._errors import Crashed, Deadlock, DeterministicForeignAwaitError
from toolfx.interpreters.testing._faults import (
    CancelAt,
    CrashAt,
    Fault,
    HangAt,
    Mortal,
    RaiseAt,
    RaiseInto,
)
from toolfx.interpreters.testing._tasks import Task, Wait
from toolfx.interpreters.testing._trace import TraceEvent, TraceKind
from toolfx.interpreters.testing._traps import Approve, Checkpoint, Join, Sleep

__all__ = ["Scheduler"]

T = TypeVar("T")


@final
class Scheduler:
    """Runs one program's tasks on a virtual clock; a seeded generator picks among the runnable."""

    __slots__ = (
        "_before_pick",
        "_clock",
        "_current",
        "_finishes",
        "_ids",
        "_mortal",
        "_random",
        "_reported",
        "_runnable",
        "_step",
        "_stops",
        "_tasks",
        "_trace",
    )

    def __init__(
        self, seed: int, faults: Sequence[Fault] = (), mortal: Sequence[Mortal] = ()
    ) -> None:
        self._random = random.Random(seed)
        self._mortal = tuple(mortal)
        self._tasks: dict[int, Task] = {}
        self._runnable: list[Task] = []
        self._clock = VirtualClock()
        self._finishes = itertools.count(1)
        self._ids = itertools.count()
        self._step = 0
        self._current: Task | None = None
        self._trace: list[TraceEvent] = []
        self._reported: list[tuple[BaseException, str]] = []
        self._before_pick: dict[int, list[CancelAt | RaiseInto | CrashAt]] = {}
        self._stops: dict[int, RaiseAt | HangAt] = {}
        for fault in faults:
            if isinstance(fault, CancelAt | RaiseInto | CrashAt):
                self._before_pick.setdefault(fault.step, []).append(fault)
            else:
                self._stops[fault.step] = fault

    @property
    def now(self) -> float:
        """The virtual time in seconds (0 when the run starts)."""
        return self._clock.now

    @property
    def trace(self) -> tuple[TraceEvent, ...]:
        """Everything recorded so far, in order."""
        return tuple(self._trace)

    @property
    def reported(self) -> tuple[tuple[BaseException, str], ...]:
        """The contained defects reported so far, with where each happened."""
        return tuple(self._reported)

    @property
    def current(self) -> int | None:
        """The id of the running task (None between steps)."""
        return None if self._current is None else self._current.id

    def record(self, kind: TraceKind, detail: str = "", task: int | None = None) -> None:
        """Append a trace event for `task` (by default the running one)."""
        who = self.current if task is None else task
        self._trace.append(TraceEvent(self._step, self._clock.now, who, kind, detail))

    def report(self, error: BaseException, where: str) -> None:
        """Keep a contained defect and record it in the trace."""
        self._reported.append((error, where))
        self.record("report", f"{where}: {_summary(error)}")

    def cancel(self, signal: CancelSignal, reason: str, where: str) -> None:
        """Set `signal` outside the program (a timer, a fault); a raising watcher is reported."""
        try:
            signal.cancel(reason)
        except Exception as error:  # a watcher's defect must not end the run
            self.report(error, f"a watcher of {where}")

    def spawn(self, coroutine: Coroutine[Any, Any, Any], name: str) -> int:
        """Start a child of the running task; it is runnable at once. Returns its id."""
        return self._new_task(coroutine, name, self.current).id

    def call_later(self, seconds: float, action: Callable[[], object]) -> Callable[[], None]:
        """Run `action` after `seconds` of virtual time (never if infinite); returns a canceller."""
        return self._clock.timer_at(self._clock.now + delay(seconds), action).cancel

    def reap(self, task_id: int) -> BaseException | None:
        """Forget a finished task and give the exception it failed with, if any."""
        return self._tasks.pop(task_id).error

    def run(self, main: Coroutine[Any, Any, T]) -> T:
        """Drive `main` and what it spawns until `main` finishes; give or raise its outcome."""
        root = self._new_task(main, "main", None)
        try:
            self._drive(root)
        except (Deadlock, DeterministicForeignAwaitError) as error:
            failure = self._close_unfinished()
            if failure is not None:
                raise error from failure
            raise
        except BaseException:  # an interrupt or a crash: close what is left, let it through
            self._close_unfinished()
            raise
        self._close_unfinished()  # orphans of a gather a fault broke out of
        if root.error is not None:
            raise root.error
        return cast(T, root.result)

    # The loop. -----------------------------------------------------------------------------------

    def _drive(self, root: Task) -> None:
        """Step until `root` finishes; a mortal store's death ends the run at the end of its step
        (whatever else that step ended in: the process died first)."""
        try:
            while not root.finished:
                self._step_once()
                self._check_alive()
        except BaseException as ending:
            self._crash_first(ending)
            raise

    def _step_once(self) -> None:
        self._clock.fire_due_timers()
        if not self._runnable:
            if not self._clock.advance():
                raise self._deadlock()
            return
        self._step += 1
        for fault in self._before_pick.get(self._step, ()):
            match fault:
                case RaiseInto():
                    self._raise_into(fault)
                case CancelAt(signal=signal, reason=reason):
                    self.record("fault", f"CancelAt: {reason}", task=None)
                    self.cancel(signal, reason, f"the signal of CancelAt({self._step})")
                case CrashAt():
                    raise self._crash(f"CrashAt({self._step})")
                case _:
                    assert_never(fault)
        index = self._random.randrange(len(self._runnable)) if len(self._runnable) > 1 else 0
        task = self._runnable.pop(index)
        value, error = task.next_value, task.next_error
        match self._stops.get(self._step):
            case HangAt():
                self._hang(task)
                return
            case RaiseAt(error=injected):
                self.record("fault", f"RaiseAt: {_summary(injected)}", task=task.id)
                value, error = None, injected
            case None:
                pass
        self._resume(task, value, error)

    def _resume(self, task: Task, value: object, error: BaseException | None) -> None:
        self._current = task
        try:
            trap = task.coroutine.send(value) if error is None else task.coroutine.throw(error)
        except StopIteration as stop:
            self._finish(task, stop.value, None)
        except CALL_FAILURES as failure:  # an error or a decline: the task's own outcome
            self._finish(task, None, failure)
        except BaseException as interrupt:  # ends the whole run, from any task
            self._finish(task, None, interrupt)
            raise
        else:
            self._handle(task, trap)
        finally:
            self._current = None

    def _handle(self, task: Task, trap: object) -> None:
        if not isinstance(trap, Checkpoint | Approve | Sleep | Join):
            raise DeterministicForeignAwaitError(
                "the deterministic interpreter (DeterministicInterpreter.run)",
                task.coroutine,
                trap,
                "use the Runtime's capabilities instead",
            )
        task.trap = trap
        match trap:
            case Checkpoint():
                self.record("checkpoint")
                self._make_runnable(task, None, None)
            case Approve():
                self._make_runnable(task, None, None)
            case Sleep(seconds=seconds, signal=signal):
                self.record("sleep", f"{seconds:g}s")
                until = self._clock.now + delay(seconds)
                wait = self._park(task, f"sleeping until t={until:g}s", signal, raises=True)
                if task.wait is wait:  # not woken already by a signal set before the trap
                    wake = lambda: self._wake(task, wait, None, None, "timer")  # noqa: E731
                    wait.timer = self._clock.timer_at(until, wake)
            case Join(tasks=joined):
                self.record("wait", "for " + ", ".join(f"task {t}" for t in joined))
                done = [self._tasks[t] for t in joined if self._tasks[t].finished]
                if done:
                    first = min(done, key=lambda child: child.finished_order)
                    self._make_runnable(task, first.id, None)
                else:
                    wait = Wait("waiting for " + ", ".join(f"task {t}" for t in joined), joined)
                    task.wait = wait
            case _:
                assert_never(trap)

    # Waking and parking. -------------------------------------------------------------------------

    def _make_runnable(self, task: Task, value: object, error: BaseException | None) -> None:
        task.next_value, task.next_error = value, error
        self._runnable.append(task)

    def _park(self, task: Task, what: str, signal: CancelSignal | None, *, raises: bool) -> Wait:
        """Park `task`; if `signal` is set, wake it (with `Cancelled` when `raises`)."""
        wait = Wait(what)
        task.wait = wait
        if signal is not None:

            def cancelled() -> None:
                reason = signal.reason or CALLER_CANCELLED
                error = Cancelled(reason) if raises else None
                self._wake(task, wait, None, error, f"cancelled: {reason}")

            wait.unsubscribe = signal.on_cancel(cancelled)
        return wait

    def _wake(
        self, task: Task, wait: Wait, value: object, error: BaseException | None, why: str
    ) -> None:
        if task.wait is not wait:  # a stale wake-up: the task already left that suspension
            return
        task.wait = None
        wait.dispose()
        self.record("wake", why, task=task.id)
        self._make_runnable(task, value, error)

    def _hang(self, task: Task) -> None:
        task.hung_at = self._step
        self.record("fault", "HangAt: never resumed", task=task.id)
        trap = task.trap
        signal = trap.signal if isinstance(trap, Sleep | Approve) else None
        what = f"hung by HangAt({self._step})"
        if signal is not None:
            what += f", until {signal!r} is set"
        self._park(task, what, signal, raises=isinstance(trap, Sleep))

    def _raise_into(self, fault: RaiseInto) -> None:
        task = self._tasks.get(fault.task)
        if task is None or task.finished or task.trap is None:  # not waiting anywhere
            state = "not running" if task is None or task.finished else "not started yet"
            self.record("fault", f"RaiseInto: task {fault.task} is {state}", task=None)
            return
        self.record("fault", f"RaiseInto: {_summary(fault.error)}", task=task.id)
        if task.wait is not None:
            self._wake(task, task.wait, None, fault.error, "RaiseInto")
        else:  # runnable: resumed with the error instead
            task.next_value, task.next_error = None, fault.error

    def _finish(self, task: Task, result: object, error: BaseException | None) -> None:
        task.finished = True
        task.finished_order = next(self._finishes)
        task.result, task.error = result, error
        if error is None:
            self.record("done", task=task.id)
        else:
            self.record("failed", _summary(error), task=task.id)
        parent = None if task.parent is None else self._tasks.get(task.parent)
        wait = None if parent is None else parent.wait
        if parent is not None and wait is not None and task.id in wait.joining:
            self._wake(parent, wait, task.id, None, f"task {task.id} finished")

    # Endings. ------------------------------------------------------------------------------------

    def _crash_first(self, ending: BaseException) -> None:
        """A run that ends in the step a mortal store died in ends with the crash instead."""
        if isinstance(ending, Crashed):
            return
        for mortal in self._mortal:
            if mortal.death is not None:
                raise self._crash(mortal.death) from ending

    def _check_alive(self) -> None:
        """A mortal store that died on its own (its crash point) takes the whole process."""
        for mortal in self._mortal:
            if mortal.death is not None:
                raise self._crash(mortal.death)

    def _crash(self, cause: str) -> Crashed:
        """Every mortal store dies (before any cleanup can write to it); the run ends."""
        for mortal in self._mortal:
            mortal.die(cause)
        self.record("fault", f"crash: {cause}", task=None)
        return Crashed(self._step, cause)

    def _new_task(self, coroutine: Coroutine[Any, Any, Any], name: str, parent: int | None) -> Task:
        task = Task(next(self._ids), name, coroutine, parent)
        self._tasks[task.id] = task
        self.record("spawn", name, task=task.id)
        self._make_runnable(task, None, None)
        return task

    def _deadlock(self) -> Deadlock:
        blocked = [
            (task.id, f"({task.name}) {task.wait.what if task.wait else 'runnable'}")
            for task in self._unfinished()
        ]
        hung = [task.id for task in self._unfinished() if task.hung_at is not None]
        return Deadlock(self._clock.now, self._step, blocked, hung)

    def _unfinished(self) -> list[Task]:
        return [task for task in self._tasks.values() if not task.finished]

    def _close_unfinished(self) -> BaseException | None:
        """Close every unfinished task, newest first; give the first error a close raised."""
        first: BaseException | None = None
        for task in sorted(self._unfinished(), key=lambda t: t.id, reverse=True):
            if task.wait is not None:
                task.wait.dispose()
                task.wait = None
            self._current = task
            try:
                task.coroutine.close()
            except BaseException as error:  # a finally block that raised or awaited
                first = first or error
            finally:
                self._current = None
            task.finished = True
            self.record("abandoned", task=task.id)
        self._runnable.clear()
        return first


def _summary(error: BaseException) -> str:
    return truncated(f"{type(error).__name__}: {error}")
