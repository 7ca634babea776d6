"""The anyio interpreter's process runner: `anyio.open_process` in a new session, on either backend.

Two tasks drain the pipes into bounded captures while a third reaps the process; the runner
waits for all three, for the timeout, or for the signal (set from any thread, woken in the loop
as `AnyioRuntime` does). The kill policy is the one in `process_common`. If the runner itself is
cancelled or interrupted, the group is killed at once and the process reaped before it leaves.
"""

from __future__ import annotations

import subprocess
from signal import SIGKILL, SIGTERM
from typing import final

import anyio
import anyio.abc

from toolfx.core.cancel import CancelSignal
from toolfx.core.processes import ProcessOutcome, ProcessRunner, ProcessSpec, SandboxMechanism
from toolfx.interpreters.anyio_wake import in_loop
from toolfx.interpreters.process_common import (
    DRAIN_AFTER_KILL,
    READ_CHUNK,
    BoundedCapture,
    Stop,
    checked_argv,
    ended,
    not_started,
    signal_group,
    spawn_error,
    wait_limit,
)

__all__ = ["AnyioProcessRunner"]


@final
class AnyioProcessRunner(ProcessRunner):
    """Runs commands on the running event loop (asyncio or trio), each in its own session."""

    __slots__ = ()

    async def run(self, spec: ProcessSpec, signal: CancelSignal) -> ProcessOutcome:
        """Run the command until it ends or is stopped (TERM, then KILL, to its group)."""
        if signal.is_cancelled():
            return not_started()
        started = anyio.current_time()
        try:
            process = await anyio.open_process(
                checked_argv(spec),
                stdin=subprocess.DEVNULL,
                cwd=spec.cwd,
                env=spec.env,
                start_new_session=True,
            )
        except OSError as error:
            raise spawn_error(spec, error) from error
        stdout, stderr = BoundedCapture(spec.output_limit), BoundedCapture(spec.output_limit)
        exited, drained = anyio.Event(), anyio.Event()
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(_follow, process, stdout, stderr, exited, drained)
                stop = await _until_stopped(drained, spec.timeout, signal)
                if stop is not None:
                    await _end_group(process.pid, spec.kill_grace, exited, drained)
                group.cancel_scope.cancel()  # stop reading pipes a process outside the group holds
        except BaseException:  # cancelled or interrupted: leave nothing running
            signal_group(process.pid, SIGKILL)
            raise
        finally:
            with anyio.CancelScope(shield=True):
                await process.aclose()
        return ended(process.returncode, stdout, stderr, stop, anyio.current_time() - started)

    def sandboxes(self) -> frozenset[SandboxMechanism]:
        """None yet: a confined spec is refused."""
        return frozenset()


async def _until_stopped(drained: anyio.Event, timeout: float, signal: CancelSignal) -> Stop | None:
    """Wait for the output to end; say why not if the timeout or the signal comes first."""
    with anyio.CancelScope() as watch:
        unsubscribe = signal.on_cancel(in_loop(watch.cancel))
        try:
            with anyio.move_on_after(wait_limit(timeout)):
                await drained.wait()
                return None
        finally:
            unsubscribe()
    return "cancelled" if watch.cancelled_caught else "timed out"


async def _end_group(pgid: int, grace: float, exited: anyio.Event, drained: anyio.Event) -> None:
    """TERM the group; KILL it after `grace` unless its output ended; then drain briefly."""
    signal_group(pgid, SIGTERM)
    with anyio.move_on_after(wait_limit(grace)):
        await drained.wait()
        return
    signal_group(pgid, SIGKILL)
    await exited.wait()
    with anyio.move_on_after(DRAIN_AFTER_KILL):
        await drained.wait()


async def _follow(
    process: anyio.abc.Process,
    stdout: BoundedCapture,
    stderr: BoundedCapture,
    exited: anyio.Event,
    drained: anyio.Event,
) -> None:
    """Drain both pipes and reap the process; `exited` when it is reaped, `drained` when all is."""
    assert process.stdout is not None
    assert process.stderr is not None
    async with anyio.create_task_group() as pumps:
        pumps.start_soon(_pump, process.stdout, stdout)
        pumps.start_soon(_pump, process.stderr, stderr)
        await process.wait()
        exited.set()
    drained.set()


async def _pump(stream: anyio.abc.ByteReceiveStream, capture: BoundedCapture) -> None:
    """Read `stream` to its end into `capture`."""
    try:
        while True:
            capture.feed(await stream.receive(READ_CHUNK))
    except anyio.EndOfStream:
        return
