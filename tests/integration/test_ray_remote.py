"""RayRemote on a real local Ray cluster this module starts (loopback only, usage statistics
off): results come back whole (a large one through the object store), a cancel or a timeout
stops the body and every process it started, a killed body or Ray worker is REMOTE_LOST naming
the worker, a cancel before the task starts never runs the body, and a batch of 100 remote calls
comes back in call order (under anyio, all 100 in flight at once), under the sync and anyio
interpreters."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import anyio
import anyio.to_thread
import pytest

from tests.integration.ray_tools import big, big_text, listening, local_cluster
from tests.integration.remote_calls import RUNS, Run, call, failure_of, pids
from tests.integration.sockets import listening_sockets, loopback
from tests.remote_tools import stubborn, where
from tests.support import SAFETY_NET, cancel_when, descendants, gone_soon
from toolfx.core.pipeline import ToolCall, execute_batch
from toolfx.core.registry import Location
from toolfx.core.runtime import (
    CancelSignal,
    RemoteOutcome,
    RemotePlacement,
    RemoteRequest,
    RemoteRunner,
    Runtime,
)
from toolfx.core.tools import ErrorCode, ToolExecutionSuccess
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.remote.ray import RayRemote


@pytest.fixture(params=sorted(RUNS))
def run(request: pytest.FixtureRequest) -> Run:
    return RUNS[request.param]


@pytest.fixture(scope="module")
def remote() -> Iterator[RayRemote]:
    """A local Ray cluster of one node on the loopback interface, for this module."""
    with local_cluster(cpus=4):
        yield RayRemote()


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


# Results ----------------------------------------------------------------------------------------


def test_a_remote_body_runs_in_a_ray_worker_and_its_result_comes_back(
    run: Run, remote: RayRemote
) -> None:
    result = call(run, remote, where, {"n": 7})
    assert isinstance(result, ToolExecutionSuccess), result
    pid, n = cast("list[int]", result.value)
    assert (n, pid != os.getpid()) == (7, True)
    assert result.concludes_turn
    assert [c.content[0].text for c in result.additional_contexts] == [f"ran in {pid}"]  # type: ignore[union-attr]


def test_a_large_result_comes_back_whole(run: Run, remote: RayRemote) -> None:
    result = call(run, remote, big, {"seed": "object store"})
    assert isinstance(result, ToolExecutionSuccess), type(result)
    assert result.value == big_text("object store")


def test_a_batch_of_a_hundred_remote_calls_comes_back_in_call_order(
    run: Run, remote: RayRemote
) -> None:
    location = Location()
    location.register(where)  # parallel-safe: under anyio, up to the batch's limit at once
    calls = [ToolCall(f"c{i}", "where", {"n": i}, CancelSignal()) for i in range(100)]
    batch = run(execute_batch(location.catalog(), calls), remote)
    assert [r.value[1] for r in batch.results] == list(range(100))
    assert os.getpid() not in {r.value[0] for r in batch.results}


def test_a_hundred_remote_calls_in_flight_at_once_come_back_in_call_order(
    remote: RayRemote,
) -> None:
    location = Location()
    location.register(where)
    calls = [ToolCall(f"c{i}", "where", {"n": i}, CancelSignal()) for i in range(100)]

    async def main() -> Any:
        anyio.to_thread.current_default_thread_limiter().total_tokens = 100  # a wait a thread
        runtime = AnyioRuntime(remote=AllAtOnce(remote, len(calls)))
        with anyio.fail_after(SAFETY_NET):  # the test fails rather than hangs
            return await run_anyio_async(
                execute_batch(location.catalog(), calls, limit=None), runtime
            )

    batch = anyio.run(main)
    assert [r.value[1] for r in batch.results] == list(range(100))
    assert [c.content[0].text for r in batch.results for c in r.additional_contexts] == [
        f"ran in {r.value[0]}" for r in batch.results
    ]


class AllAtOnce(RemoteRunner):
    """`inner`, handed the calls only once `count` of them wait: all in flight together."""

    def __init__(self, inner: RemoteRunner, count: int) -> None:
        self._inner = inner
        self._count = count
        self._arrived = 0
        self._all = anyio.Event()

    async def run(
        self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
    ) -> RemoteOutcome:
        self._arrived += 1  # on the event loop's thread: no lock needed
        if self._arrived == self._count:
            self._all.set()
        await self._all.wait()
        return await self._inner.run(request, signal, runtime)


def test_a_reference_the_worker_cannot_import_is_unknown_tool(remote: RayRemote) -> None:
    lost = replace(where, remote=RemotePlacement(reference="tests.no_such_module:where"))
    failure = failure_of(call(RUNS["sync"], remote, lost, {"n": 1}))
    assert failure.error.code is ErrorCode.UNKNOWN_TOOL
    assert "tests.no_such_module:where" in failure.error.message


# Cancelling -------------------------------------------------------------------------------------


def test_a_cancelled_long_running_body_stops_with_every_process_it_started(
    run: Run, remote: RayRemote, tmp_path: Path
) -> None:
    marker = tmp_path / "pids"
    caller = CancelSignal()
    cancel_when(caller, marker.exists, "the user pressed stop")
    failure = failure_of(call(run, remote, stubborn, {"marker": str(marker)}, caller))
    assert failure.error.code is ErrorCode.ABORTED
    assert "the user pressed stop" in failure.error.message
    assert all(gone_soon(pid) for pid in pids(marker))


def test_a_cancelled_body_sees_its_own_signal_set(remote: RayRemote, tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    caller = CancelSignal()
    cancel_when(caller, marker.exists, "enough")
    failure = failure_of(call(RUNS["asyncio"], remote, listening, {"marker": str(marker)}, caller))
    assert failure.error.code is ErrorCode.ABORTED
    assert "enough" in failure.error.message
    assert gone_soon(pids(marker)[0])
    seen = (tmp_path / "pid.reason").read_text("utf-8")
    assert seen == "Ray cancelled the task running this body"


def test_a_timeout_ends_the_remote_body(run: Run, remote: RayRemote, tmp_path: Path) -> None:
    marker = tmp_path / "pids"
    timed = replace(stubborn, timeout=2.0)  # time to start the body
    failure = failure_of(call(run, remote, timed, {"marker": str(marker)}))
    assert failure.error.code is ErrorCode.TOOL_TIMEOUT
    assert all(gone_soon(pid) for pid in pids(marker))


def test_a_cancel_before_the_task_starts_never_runs_the_body(
    run: Run, remote: RayRemote, tmp_path: Path
) -> None:
    marker = tmp_path / "pids"
    nowhere = f"no-such-node-{uuid.uuid4().hex}"  # what an earlier test asked for may linger
    unplaceable = replace(
        stubborn,
        remote=RemotePlacement(
            reference="tests.remote_tools:stubborn", resources=((nowhere, 1.0),)
        ),
    )
    caller = CancelSignal()
    cancel_when(caller, lambda: _waiting_for(nowhere), "not needed after all")
    failure = failure_of(call(run, remote, unplaceable, {"marker": str(marker)}, caller))
    assert failure.error.code is ErrorCode.ABORTED_BEFORE_DISPATCH
    assert "not needed after all" in failure.error.message
    assert not marker.exists()


def _waiting_for(resource: str) -> bool:
    """Whether Ray reports a task waiting for `resource`, which no node has: it was submitted,
    and waits unplaced until it is cancelled."""
    import ray
    from ray.autoscaler.v2.sdk import get_cluster_status

    status = get_cluster_status(ray.get_runtime_context().gcs_address)
    return any(
        resource in request.bundle
        for demand in status.resource_demands.ray_task_actor_demand
        for request in demand.bundles_by_count
    )


# Lost workers -----------------------------------------------------------------------------------


def test_a_body_killed_mid_call_is_remote_lost_naming_its_worker(
    run: Run, remote: RayRemote, tmp_path: Path
) -> None:
    marker = tmp_path / "pids"

    def kill_the_body() -> bool:
        if not marker.exists():
            return False
        os.kill(pids(marker)[0], signal.SIGKILL)
        return True

    cancel_when(CancelSignal(), kill_the_body, "unused")
    failure = failure_of(call(run, remote, stubborn, {"marker": str(marker)}))
    assert failure.error.code is ErrorCode.REMOTE_LOST
    body, child = pids(marker)
    assert "Ray node " in failure.error.message
    assert f"(pid {body})" in failure.error.message
    assert "killed by SIGKILL" in failure.error.message
    assert gone_soon(child)  # it went with its group


def test_a_ray_worker_killed_mid_call_is_remote_lost_naming_it(
    run: Run, remote: RayRemote, tmp_path: Path
) -> None:
    marker = tmp_path / "pids"
    killed: list[int] = []

    def kill_the_ray_worker() -> bool:
        if not marker.exists():
            return False
        worker = parent_of(parent_of(pids(marker)[0]))  # body <- forkserver <- Ray worker
        killed.append(worker)
        os.kill(worker, signal.SIGKILL)
        return True

    cancel_when(CancelSignal(), kill_the_ray_worker, "unused")
    failure = failure_of(call(run, remote, stubborn, {"marker": str(marker)}))
    assert failure.error.code is ErrorCode.REMOTE_LOST
    assert f"worker pid {killed[0]}" in failure.error.message
    assert "WorkerCrashedError" in failure.error.message
    assert all(gone_soon(pid) for pid in pids(marker))  # the body and its child went with it


# The network ------------------------------------------------------------------------------------


def test_every_socket_the_cluster_listens_on_is_on_the_loopback(remote: RayRemote) -> None:
    call(RUNS["sync"], remote, where, {"n": 1})  # a worker is up, besides the cluster's servers
    sockets = listening_sockets(descendants(os.getpid()) | {os.getpid()})
    assert sockets  # the check sees Ray's servers at all
    assert [entry for entry in sockets if not loopback(entry[1])] == []
