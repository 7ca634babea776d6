"""ProcessRemote: remote bodies in child processes of this machine, under the sync and anyio
interpreters: results and failures come back whole, a cancel or a timeout ends the body and
every process it started, a killed worker is REMOTE_LOST, and tools are found by reference or
through the installed providers over a shared workspace."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from tests.integration.remote_calls import RUNS, Run, call, failure_of, pids
from tests.remote_tools import patient, stubborn, where
from tests.support import SAFETY_NET, cancel_when, gone_soon
from toolfx.core.pipeline import ToolCall, execute, execute_batch
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
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.remote import ProcessRemote, ProvidedTools


@pytest.fixture(params=sorted(RUNS))
def run(request: pytest.FixtureRequest) -> Run:
    return RUNS[request.param]


@pytest.fixture(scope="module")
def remote() -> ProcessRemote:
    return ProcessRemote(workers=4)


def test_a_remote_body_runs_in_another_process_and_its_result_comes_back(
    run: Run, remote: ProcessRemote
) -> None:
    result = call(run, remote, where, {"n": 7})
    assert isinstance(result, ToolExecutionSuccess)
    pid, n = result.value  # type: ignore[misc, str-unpack]
    assert (n, pid != os.getpid()) == (7, True)
    assert result.concludes_turn
    assert [c.content[0].text for c in result.additional_contexts] == [f"ran in {pid}"]  # type: ignore[union-attr]


def test_remote_calls_of_a_batch_come_back_in_order(run: Run, remote: ProcessRemote) -> None:
    location = Location()
    location.register(where)
    calls = [ToolCall(f"c{i}", "where", {"n": i}, CancelSignal()) for i in range(12)]
    batch = run(execute_batch(location.catalog(), calls), remote)
    assert [r.value[1] for r in batch.results] == list(range(12))


def test_a_cancelled_stubborn_body_is_killed_with_every_process_it_started(
    run: Run, remote: ProcessRemote, tmp_path: Path
) -> None:
    marker = tmp_path / "pids"
    caller = CancelSignal()
    cancel_when(caller, marker.exists, "the user pressed stop")
    result = call(run, remote, stubborn, {"marker": str(marker)}, caller)
    assert failure_of(result).error.code is ErrorCode.ABORTED
    assert "the user pressed stop" in failure_of(result).error.message
    assert all(gone_soon(pid) for pid in pids(marker))


def test_a_cooperative_body_stops_on_its_own_signal_and_its_context_comes_back(
    run: Run, remote: ProcessRemote, tmp_path: Path
) -> None:
    marker = tmp_path / "pids"
    caller = CancelSignal()
    cancel_when(caller, marker.exists, "enough")
    failure = failure_of(call(run, remote, patient, {"marker": str(marker)}, caller))
    assert failure.error.code is ErrorCode.ABORTED
    assert [c.content[0].text for c in failure.additional_contexts] == ["stopped: enough"]  # type: ignore[union-attr]
    assert gone_soon(pids(marker)[0])


def test_a_timeout_ends_the_remote_body(run: Run, remote: ProcessRemote, tmp_path: Path) -> None:
    marker = tmp_path / "pids"
    timed = replace(stubborn, timeout=0.3)
    failure = failure_of(call(run, remote, timed, {"marker": str(marker)}))
    assert failure.error.code is ErrorCode.TOOL_TIMEOUT
    assert all(gone_soon(pid) for pid in pids(marker))


def test_a_worker_killed_mid_call_is_remote_lost_naming_it(
    run: Run, remote: ProcessRemote, tmp_path: Path
) -> None:
    marker = tmp_path / "pids"

    def kill_the_worker() -> bool:
        if not marker.exists():
            return False
        os.kill(pids(marker)[0], signal.SIGKILL)
        return True

    cancel_when(CancelSignal(), kill_the_worker, "unused")
    failure = failure_of(call(run, remote, stubborn, {"marker": str(marker)}))
    assert failure.error.code is ErrorCode.REMOTE_LOST
    worker = pids(marker)[0]
    assert f"a local worker process (pid {worker})" in failure.error.message
    assert "killed by SIGKILL" in failure.error.message
    assert gone_soon(pids(marker)[1])  # its child went with its group


def test_a_cancel_before_a_worker_is_free_never_starts_the_body(tmp_path: Path) -> None:
    one = ProcessRemote(workers=1)
    marker = tmp_path / "pids"
    queued = threading.Event()

    class SecondWaits(RemoteRunner):
        """`one`, with the call "waiting" handed over only once "busy" holds the only slot."""

        async def run(
            self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
        ) -> RemoteOutcome:
            if request.call_id == "waiting":
                while not marker.exists():
                    await runtime.sleep(0.01)
                queued.set()
            return await one.run(request, signal, runtime)

    location = Location()
    location.register(where)
    location.register(replace(stubborn, is_concurrency_safe=True))
    first, second = CancelSignal(), CancelSignal()
    calls = [
        ToolCall("busy", "stubborn", {"marker": str(marker)}, first),
        ToolCall("waiting", "where", {"n": 1}, second),
    ]

    def cancel_both() -> bool:
        if not queued.is_set():
            return False
        second.cancel("never mind")
        first.cancel("never mind")
        return True

    cancel_when(CancelSignal(), cancel_both, "unused")
    runtime = AnyioRuntime(remote=SecondWaits())
    batch = run_anyio(execute_batch(location.catalog(), calls), runtime=runtime)
    codes = [failure_of(r).error.code for r in batch.results]
    assert codes == [ErrorCode.ABORTED, ErrorCode.ABORTED_BEFORE_DISPATCH]


def test_a_reference_the_worker_cannot_import_is_unknown_tool(
    run: Run, remote: ProcessRemote
) -> None:
    lost = replace(where, remote=RemotePlacement(reference="tests.no_such_module:where"))
    failure = failure_of(call(run, remote, lost, {"n": 1}))
    assert failure.error.code is ErrorCode.UNKNOWN_TOOL
    assert "tests.no_such_module:where" in failure.error.message


def test_a_reference_to_another_tool_is_unknown_tool(run: Run, remote: ProcessRemote) -> None:
    elsewhere = replace(where, remote=RemotePlacement(reference="tests.remote_tools:failing"))
    failure = failure_of(call(run, remote, elsewhere, {"n": 1}))
    assert failure.error.code is ErrorCode.UNKNOWN_TOOL
    assert "is the tool `failing` on the worker, not `where`" in failure.error.message


def test_workers_find_the_providers_tools_over_a_shared_workspace(run: Run, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("shared storage\n", encoding="utf-8")
    from toolfx.interpreters.providers import load_catalog

    catalog = load_catalog(str(tmp_path), None, "off")
    read = catalog.get("read")
    assert read is not None
    location = Location()
    location.register(replace(read, remote=RemotePlacement()))
    remote = ProcessRemote(ProvidedTools.of(str(tmp_path), None, "off"), workers=1)
    given = ToolCall("r", "read", {"path": "notes.txt"}, CancelSignal())
    result = run(execute(location.catalog(), given), remote)
    assert isinstance(result, ToolExecutionSuccess)
    assert "shared storage" in result.content[0].text  # type: ignore[union-attr]


def test_a_driver_that_dies_takes_its_remote_bodies_with_it(tmp_path: Path) -> None:
    marker = tmp_path / "pids"
    script = textwrap.dedent(
        f"""
        from tests.remote_tools import stubborn
        from toolfx.core.pipeline import ToolCall, execute
        from toolfx.core.registry import Location
        from toolfx.core.runtime import CancelSignal
        from toolfx.interpreters.remote import ProcessRemote
        from toolfx.interpreters.sync import SyncRuntime, run_sync

        if __name__ == "__main__":
            location = Location()
            location.register(stubborn)
            call = ToolCall("c", "stubborn", {{"marker": {str(marker)!r}}}, CancelSignal())
            run_sync(execute(location.catalog(), call), SyncRuntime(remote=ProcessRemote()))
        """
    )
    driver = subprocess.Popen(
        [sys.executable, "-c", script], cwd=Path(__file__).parents[2], start_new_session=True
    )
    try:
        cancel_when(CancelSignal(), marker.exists, "unused").join(SAFETY_NET)
        assert marker.exists()
    finally:
        driver.kill()
        driver.wait()
    assert all(gone_soon(pid) for pid in pids(marker))
