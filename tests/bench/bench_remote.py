"""Remote tool bodies: what the remote path costs per call, and 100 concurrent remote bodies.

Per call: one trivial call (`noop`, a body that gives its argument back) under the sync
interpreter, run locally (no remote runner), on `ProcessRemote` (a child process of this machine
per body) and on `RayRemote` (a Ray task per body, on a local cluster of one node that this bench
starts, loopback only, usage statistics off), each the least disturbed of several runs taken in
turns; the ratios are remote over local, measured side by side.

Throughput: one turn of 100 calls of `nap` (a blocking body that sleeps 100 ms) through
`execute_batch` with every call at once (`limit=None`) under the anyio interpreter (asyncio), run
locally (each body on a worker thread), on `ProcessRemote` (100 worker processes) and on Ray. Each
`nap` body reserves 0.01 CPU, so Ray places all 100 at once on this node however few its CPUs;
Ray runs each task in a worker process of its own, so the first turn starts 100 Ray workers
(timed alone, as the cold turn), and the cluster keeps them (`num_workers_soft_limit`) for the
warm turns. A remote call waits on a thread (`run_blocking`), so anyio's default limit of 40
threads is raised to 100 for every case alike. Every timed turn is checked to hold 100 successes
in call order.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from typing import Final

import anyio
import anyio.to_thread

from tests.bench.harness import Case
from tests.integration.ray_tools import local_cluster, nap, noop
from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, RemoteRunner
from toolfx.core.tools import ToolExecutionSuccess
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.remote import ProcessRemote
from toolfx.interpreters.remote.ray import RayRemote
from toolfx.interpreters.sync import SyncRuntime, run_sync

BODIES: Final = 100
"""Calls in the concurrent turn."""

CALLS: Final = {"local": 2_000, "ProcessRemote": 20, "Ray": 20}
"""Calls per timed run of the per-call case, by where the body runs."""

RUNS: Final = 7
"""Timed runs of each per-call case, taken in turns; the fastest counts."""

TURNS: Final = 3
"""Timed warm turns of each throughput case, taken in turns; the fastest counts."""

CLUSTER_CPUS: Final = max(2, os.cpu_count() or 1)
"""The CPUs the local Ray node offers (this machine's)."""


def _calls(remote: RemoteRunner | None, count: int) -> Callable[[], None]:
    """`count` calls of `noop` one after another under the sync interpreter."""
    location = Location()
    location.register(noop)
    catalog = location.catalog()
    runtime = SyncRuntime(remote=remote)

    def calls() -> None:
        for index in range(count):
            given = ToolCall(f"c{index}", "noop", {"n": index}, CancelSignal())
            result = run_sync(execute(catalog, given), runtime)
            assert isinstance(result, ToolExecutionSuccess), result
            assert result.value == index, result.value

    return calls


def _turn(remote: RemoteRunner | None) -> Callable[[], None]:
    """One turn of `BODIES` concurrent `nap` calls under anyio, checked."""
    location = Location()
    location.register(nap)
    catalog = location.catalog()
    runtime = AnyioRuntime(remote=remote)

    async def main() -> None:
        anyio.to_thread.current_default_thread_limiter().total_tokens = BODIES
        calls = [ToolCall(f"c{i}", "nap", {"n": i}, CancelSignal()) for i in range(BODIES)]
        batch = await run_anyio_async(execute_batch(catalog, calls, limit=None), runtime)
        values = [r.value if isinstance(r, ToolExecutionSuccess) else r for r in batch.results]
        assert values == list(range(BODIES)), values

    return lambda: anyio.run(main)


def _seconds(action: Callable[[], None]) -> float:
    gc.collect()  # each run starts from the same heap; its own collections still count
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _fastest(actions: dict[str, Callable[[], None]], runs: int) -> dict[str, float]:
    """Each action's fastest run in seconds, the actions taken in turns (load hits all alike)."""
    best = dict.fromkeys(actions, float("inf"))
    for _ in range(runs):
        for name, action in actions.items():
            best[name] = min(best[name], _seconds(action))
    return best


def run() -> list[Case]:
    """Time the per-call overhead and the concurrent turn: local, ProcessRemote, Ray."""
    processes = ProcessRemote(workers=BODIES)
    with local_cluster(CLUSTER_CPUS, num_workers_soft_limit=BODIES + CLUSTER_CPUS):
        ray = RayRemote()
        runners: dict[str, RemoteRunner | None] = {
            "local": None,
            "ProcessRemote": processes,
            "Ray": ray,
        }
        per_call = {name: _calls(remote, CALLS[name]) for name, remote in runners.items()}
        for action in per_call.values():  # warm up: a Ray worker, the forkservers
            action()
        best = _fastest(per_call, RUNS)
        micros = {name: best[name] / CALLS[name] * 1e6 for name in runners}
        turns = {name: _turn(remote) for name, remote in runners.items()}
        cold = _seconds(turns["Ray"])  # the first Ray turn starts its 100 workers
        for name in ("local", "ProcessRemote"):
            turns[name]()  # warm up: threads, the forkserver
        warm = _fastest(turns, TURNS)
    cases: list[Case] = [(f"one trivial call, sync, {name}", micros[name]) for name in runners]
    cases += [
        (f"one trivial call, {name} / local (x)", micros[name] / micros["local"])
        for name in ("ProcessRemote", "Ray")
    ]
    size = f"{BODIES} x 100 ms blocking bodies at once, anyio"
    cases += [(f"{size}, {name} (ms)", warm[name] * 1e3) for name in runners]
    cases += [
        (f"{size}, {name} / local (x)", warm[name] / warm["local"])
        for name in ("ProcessRemote", "Ray")
    ]
    cases.append(
        (
            f"{size}, Ray, first turn: starts {BODIES} Ray workers, one per task "
            f"(0.01 CPU each, so all fit on {CLUSTER_CPUS} CPUs) (s)",
            cold,
        )
    )
    return cases
