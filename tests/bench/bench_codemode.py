"""Benchmarks of Code Mode: what a tool call made from a `run_code` program costs (issue 14).

Measured side by side in one run, over the same trivial tool, one call at a time and 1,000
gathered at once (a parallel-safe tool, at the parallel limit Code Mode schedules with), 5,000
calls a program:

- native: the calls as `execute` calls one after another, or as `execute_batch`es of 1,000, each
  call built from its arguments as a model's would be;
- Code Mode: one `run_code` call whose program makes the same calls (`for i in range(N): await
  get(x=i)`, or `await asyncio.gather(*[pget(x=i) for i in range(1000)])` five times) in Monty;
- Monty alone: the same program straight through `pydantic_monty`, each call answered with a
  future and each `FutureSnapshot` with the values: no toolfx at all;
- toolfx alone: the same `run_code` call with an engine that hands out the same steps at once,
  so the row is what toolfx itself spends per sub-call (the pipeline call included), free of
  the worker's noise.

A program has a fixed cost (a worker checkout, type checking against the stubs, the run and its
result). Per-call figures subtract what an empty program costs, measured the same way, and the
fixed cost is its own row: type checking is most of it (compare the two "Monty alone, empty
program" rows). The target: Code Mode per sub-call <= 2 x a native call + Monty's own cost per
call, checked by the "target <= 1" rows: the sync interpreter in detail, anyio on asyncio and the
deterministic interpreter a line each. Monty's own cost is measured with a host that answers at
once; a host that works between answers makes each of Monty's round trips dearer (the worker
has gone idle), which one more row shows: Monty alone with the host spinning for a native call's
time before each answer, that time taken out again.
"""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, TypedDict, final

import anyio
from pydantic_monty import FunctionSnapshot, FutureSnapshot, Monty, MontyComplete, ResourceLimits

from tests.bench.harness import Case
from toolfx.core.codemode import RUN_CODE
from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import (
    CallsWaiting,
    CancelSignal,
    CodeEngine,
    CodeLimits,
    CodeProgram,
    CodeSession,
    Description,
    HostCall,
    HostError,
    HostValue,
    ProgramFinished,
    ProgramStep,
    Runtime,
)
from toolfx.core.tools import Output, ToolExecutionResult, ToolExecutionSuccess, define_tool
from toolfx.interpreters import MontyEngine
from toolfx.interpreters.anyio import AnyioRuntime
from toolfx.interpreters.codemode._monty_session import PRELUDE
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import DeterministicInterpreter

GATHER: Final = 1_000
"""Calls gathered at once (one pause of the program for all of them)."""
CALLS: Final = 5 * GATHER
"""Calls each program makes: one at a time, or five gathers of `GATHER`. Many, so the noise of
the fixed cost (type checking: +-30 ms on a busy machine) stays small per call."""
ROUNDS: Final = 5
"""Timed runs of each measurement; the fastest is kept (the least disturbed)."""
LIMITS: Final = CodeLimits(tool_calls=CALLS)
"""The engine's limits: the defaults, with room for every call the programs make."""
SUSPENSIONS: Final = 100_000
"""Monty's pause limit, as `MontyEngine` sets it by default."""

EMPTY: Final = "None"
ONE_AT_A_TIME: Final = f"for i in range({CALLS}):\n    await get(x=i)\nNone"
GATHERED: Final = (
    f"import asyncio\nfor _ in range({CALLS // GATHER}):\n"
    f"    await asyncio.gather(*[pget(x=i) for i in range({GATHER})])\nNone"
)


@final
@dataclass(frozen=True, slots=True)
class Shape:
    """One way a program makes its calls: the program, the tool and how natives make them."""

    label: str
    program: str
    tool: str
    gathered: bool


SHAPES: Final = (
    Shape("one at a time", ONE_AT_A_TIME, "get", gathered=False),
    Shape("1,000 gathered", GATHERED, "pget", gathered=True),
)


class Args(TypedDict):
    x: int


def echo(args: Args, ctx: object) -> int:
    return args["x"]


def parallel_safe(args: Args) -> bool:
    return True


def _location() -> Location:
    """`get` (exclusive) and `pget` (parallel-safe), native globally, Code Mode for "agent"."""
    location = Location()
    location.register(
        define_tool(
            name="get", description="x back.", parameters=Args, output=Output(int), execute=echo
        )
    )
    location.register(
        define_tool(
            name="pget",
            description="x back.",
            parameters=Args,
            output=Output(int),
            execute=echo,
            is_concurrency_safe=parallel_safe,
        )
    )
    location.add_scope("agent")
    location.present_as("agent", "code")
    return location


# --- the ways to make the calls -----------------------------------------------------------------


def _native(catalog: Catalog, shape: Shape) -> Description[None]:
    """The shape's calls as native calls: one `execute` after another, or one batch."""

    async def program(runtime: Runtime) -> None:
        signal = CancelSignal()
        if shape.gathered:
            for _ in range(CALLS // GATHER):
                calls = [ToolCall(f"c{i}", shape.tool, {"x": i}, signal) for i in range(GATHER)]
                batch = execute_batch(catalog, calls, limit=LIMITS.parallel_calls)
                for result in (await batch.program(runtime)).results:
                    _succeeded(result)
            return
        for i in range(CALLS):
            call = ToolCall(f"c{i}", shape.tool, {"x": i}, signal)
            _succeeded(await execute(catalog, call).program(runtime))

    return Description(program)


def _code_mode(catalog: Catalog, text: str) -> Description[None]:
    """One `run_code` call running `text`."""

    async def program(runtime: Runtime) -> None:
        call = ToolCall("c", RUN_CODE, {"code": text}, CancelSignal())
        _succeeded(await execute(catalog, call).program(runtime))

    return Description(program)


def _succeeded(result: ToolExecutionResult) -> None:
    if not isinstance(result, ToolExecutionSuccess):  # a bench of failures measures nothing
        raise SystemExit(f"bench_codemode: a call failed: {result.error.message}")


def _monty_alone(pool: Monty, stubs: str | None, text: str, busy: float = 0.0) -> None:
    """Run `text` straight in Monty (type-checked against `stubs` unless None), the host busy
    for `busy` seconds before each answer of values."""
    limits: ResourceLimits = {
        "max_memory": LIMITS.memory_bytes,
        "max_recursion_depth": LIMITS.recursion_depth,
        "max_feed_duration_secs": LIMITS.seconds,
        "max_suspensions": SUSPENSIONS,
    }
    with pool.checkout(
        type_check=stubs is not None, type_check_stubs=stubs, limits=limits
    ) as session:
        waiting: dict[int, object] = {}
        snapshot = session.feed_start(text)
        while not isinstance(snapshot, MontyComplete):
            if isinstance(snapshot, FunctionSnapshot):
                waiting[snapshot.call_id] = snapshot.kwargs["x"]
                snapshot = snapshot.resume({"future": ...})
            elif isinstance(snapshot, FutureSnapshot):
                _spin(busy)
                pending = snapshot.pending_call_ids
                snapshot = snapshot.resume(
                    {call: {"return_value": waiting.pop(call)} for call in pending}
                )
            else:
                raise SystemExit(f"bench_codemode: Monty paused on {snapshot!r}")


def _spin(seconds: float) -> None:
    """Keep this thread computing for `seconds` (a host doing a call's work meanwhile)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@final
@dataclass(slots=True)
class _RecordingEngine:
    """Monty's engine, keeping the stubs of the programs it starts (Monty alone checks them)."""

    engine: MontyEngine
    stubs: list[str] = field(default_factory=list)

    @property
    def limits(self) -> CodeLimits:
        return self.engine.limits

    def start(self, program: CodeProgram) -> CodeSession:
        self.stubs.append(program.stubs)
        return self.engine.start(program)


@final
@dataclass(slots=True)
class _InstantSession:
    """The steps Monty gives for a program making `calls` calls `per_step` at a time, at once."""

    tool: str
    calls: int
    per_step: int
    made: int = 0

    def begin(self) -> ProgramStep:
        return self._next()

    def answer_calls(self, answers: Mapping[int, HostValue | HostError]) -> ProgramStep:
        return self._next()

    def answer_clock(self, seconds: float) -> ProgramStep:
        raise NotImplementedError

    def answer_sleep(self) -> ProgramStep:
        raise NotImplementedError

    def stop(self) -> None:
        return

    def close(self) -> None:
        return

    def _next(self) -> ProgramStep:
        if self.made == self.calls:
            return ProgramFinished(None)
        first, self.made = self.made, self.made + self.per_step
        calls = tuple(HostCall(n, self.tool, {"x": n}) for n in range(first, self.made))
        return CallsWaiting(calls)


@final
@dataclass(frozen=True, slots=True)
class _InstantEngine:
    """Starts an `_InstantSession` making the calls of the shape whose program it is given."""

    limits: CodeLimits = LIMITS

    def start(self, program: CodeProgram) -> CodeSession:
        for shape in SHAPES:
            if shape.program == program.text:
                return _InstantSession(shape.tool, CALLS, GATHER if shape.gathered else 1)
        return _InstantSession("", 0, 1)  # the empty program


# --- timing -------------------------------------------------------------------------------------

Timer = Callable[[Description[None]], float]
"""The fastest of `ROUNDS` runs of a description under one interpreter, in seconds."""


def _fastest(action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        gc.collect()  # each run starts from the same heap; its own collections still count
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def _sync_timer(engine: CodeEngine) -> Timer:
    runtime = SyncRuntime(code=engine)
    return lambda description: _fastest(lambda: run_sync(description, runtime))


def _deterministic_timer(engine: CodeEngine) -> Timer:
    interpreter = DeterministicInterpreter(seed=1, code=engine)
    return lambda description: _fastest(lambda: interpreter.run(description))


def _anyio_timer(engine: CodeEngine) -> Timer:
    """Runs inside one asyncio loop, so no loop start-up is timed."""
    runtime = AnyioRuntime(code=engine)

    def timed(description: Description[None]) -> float:
        async def rounds() -> float:
            best = float("inf")
            for _ in range(ROUNDS):
                gc.collect()
                start = time.perf_counter()
                await description.program(runtime)
                best = min(best, time.perf_counter() - start)
            return best

        return anyio.run(rounds, backend="asyncio")

    return timed


TIMERS: Final[Mapping[str, Callable[[CodeEngine], Timer]]] = {
    "sync": _sync_timer,
    "anyio-asyncio": _anyio_timer,
    "deterministic": _deterministic_timer,
}


def _per_call(timer: Timer, description: Description[None], fixed: float) -> float:
    """µs per call of `description` (making `CALLS` calls) past its `fixed` seconds."""
    return (timer(description) - fixed) / CALLS * 1e6


# --- the cases ----------------------------------------------------------------------------------


def run() -> list[Case]:
    """Code Mode per sub-call against native calls and Monty alone, one at a time and gathered."""
    location = _location()
    native, code = location.catalog(), location.catalog("agent")
    with Monty(min_processes=1, max_processes=2, checkout_timeout=60.0) as pool:
        engine = _RecordingEngine(MontyEngine(LIMITS, pool=pool, suspensions=SUSPENSIONS))
        run_sync(_code_mode(code, EMPTY), SyncRuntime(code=engine))
        stubs = PRELUDE + engine.stubs[-1]  # what the session checks programs against
        monty_fixed = _fastest(lambda: _monty_alone(pool, stubs, EMPTY))
        cases: list[Case] = [
            ("Monty alone, empty program, type-checked (ms)", monty_fixed * 1e3),
            (
                "Monty alone, empty program, not type-checked (ms)",
                _fastest(lambda: _monty_alone(pool, None, EMPTY)) * 1e3,
            ),
        ]
        timers = {name: make(engine) for name, make in TIMERS.items()}
        fixed = {name: timer(_code_mode(code, EMPTY)) for name, timer in timers.items()}
        cases.extend(
            (f"Code Mode, empty program, {name} (ms)", seconds * 1e3)
            for name, seconds in fixed.items()
        )
        instant = _sync_timer(_InstantEngine())
        instant_fixed = instant(_code_mode(code, EMPTY))
        targets: list[Case] = []
        for shape in SHAPES:
            alone = functools.partial(_monty_alone, pool, stubs, shape.program)
            monty = (_fastest(alone) - monty_fixed) / CALLS * 1e6
            cases.append((f"Monty alone per external call, {shape.label}", monty))
            for name, timer in timers.items():
                per_native = timer(_native(native, shape)) / CALLS * 1e6
                per_sub_call = _per_call(timer, _code_mode(code, shape.program), fixed[name])
                if name == "sync":
                    toolfx = _per_call(instant, _code_mode(code, shape.program), instant_fixed)
                    if not shape.gathered:  # Monty's cost grows with the host's time per answer
                        busy = functools.partial(alone, busy=per_native / 1e6)
                        monty_busy = (_fastest(busy) - monty_fixed) / CALLS * 1e6 - per_native
                        cases.append(
                            (
                                f"Monty alone per external call, {shape.label}, the host busy "
                                "for a native call's time per answer (that time not counted)",
                                monty_busy,
                            )
                        )
                    cases.extend(
                        [
                            (f"native execute per call, {shape.label}, sync", per_native),
                            (f"Code Mode per sub-call, {shape.label}, sync", per_sub_call),
                            (
                                f"toolfx alone per sub-call (no sandbox), {shape.label}, sync",
                                toolfx,
                            ),
                        ]
                    )
                targets.append(
                    (
                        f"target <= 1: Code Mode per sub-call / (2 x native + Monty), "
                        f"{shape.label}, {name} (x)",
                        per_sub_call / (2 * per_native + monty),
                    )
                )
    return [*cases, *targets]
