"""The anyio interpreter's process runner: `anyio.open_process` in a new session, on either backend.

Two tasks drain the pipes into bounded captures and the run's sink (one read at a time, each call
shielded so that a read handed over is never half taken) while a third reaps the process; the
runner waits for all three, for the timeout, or for the signal (set from any thread, woken in the
loop as `AnyioRuntime` does). The kill policy is the one in `toolfx.interpreters._process_common`.
If the runner itself is cancelled or interrupted, the group is killed at once and the process
reaped before it leaves.
"""

from __future__ import annotations

import os
import subprocess
from signal import SIGKILL, SIGTERM
from typing import final

import anyio
import anyio.abc

from toolfx.core.runtime import (
    CancelSignal,
    OutputSink,
    OutputStream,
    ProcessOutcome,
    ProcessRunner,
    ProcessSpec,
    SandboxMechanism,
)
from toolfx.interpreters._os.launch import available_sandboxes, launch, started
from toolfx.interpreters._process_common import (
    DRAIN_AFTER_KILL,
    READ_CHUNK,
    SWEEP_WAIT,
    BoundedCapture,
    Stop,
    checked_argv,
    ended,
    not_started,
    signal_group,
    spawn_error,
    sweep_now,
    wait_limit,
)
from toolfx.interpreters.anyio._wake import in_loop

__all__ = ["AnyioProcessRunner"]


@final
class AnyioProcessRunner(ProcessRunner):
    """Runs commands on the running event loop (asyncio or trio), each in its own session."""

    __slots__ = ()

    async def run(
        self, spec: ProcessSpec, signal: CancelSignal, output: OutputSink | None = None
    ) -> ProcessOutcome:
        """Run the command until it ends or is stopped (TERM, then KILL, to its group)."""
        if signal.is_cancelled():
            return not_started()
        how = launch(spec, checked_argv(spec))
        try:
            try:
                process = await anyio.open_process(
                    how.argv,
                    stdin=subprocess.DEVNULL,
                    stderr=subprocess.STDOUT if spec.stderr_to_stdout else subprocess.PIPE,
                    cwd=spec.cwd,
                    env=how.env,
                    start_new_session=True,
                    pass_fds=how.handed,
                )
            except OSError as error:
                raise spawn_error(spec, error) from error
            finally:
                how.close_handed()
            return await _watch(spec, signal, process, how.status, output)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(how.finish)

    def sandboxes(self) -> frozenset[SandboxMechanism]:
        """Landlock and bubblewrap, where this machine has them (probed once)."""
        return available_sandboxes()


async def _watch(
    spec: ProcessSpec,
    signal: CancelSignal,
    process: anyio.abc.Process,
    status: int | None,
    output: OutputSink | None,
) -> ProcessOutcome:
    """Follow a started process to its end, or stop it; nothing of it is left running after."""
    started_at = anyio.current_time()
    stdout, stderr = BoundedCapture(spec.output_limit), BoundedCapture(spec.output_limit)
    exited, drained = anyio.Event(), anyio.Event()
    try:
        if status is not None:  # the supervisor writes nothing else: the pipes can wait
            started(spec, await _read_all(status))
        async with anyio.create_task_group() as group:
            pipes = _Pipes(stdout, stderr, output)
            group.start_soon(_follow, process, pipes, exited, drained)
            stop = await _until_stopped(drained, spec.timeout, signal)
            if stop is not None:
                await _end_group(process.pid, spec.kill_grace, exited, drained)
            group.cancel_scope.cancel()  # stop reading pipes a process outside the group holds
    except BaseException:  # cancelled, interrupted or not started: leave nothing running
        with anyio.CancelScope(shield=True):
            sweep_now(process.pid)
            with anyio.move_on_after(SWEEP_WAIT):
                await process.wait()
        signal_group(process.pid, SIGKILL)
        raise
    finally:
        with anyio.CancelScope(shield=True):
            await process.aclose()
    return ended(process.returncode, stdout, stderr, stop, anyio.current_time() - started_at)


async def _read_all(fd: int) -> bytes:
    """Everything written on the pipe `fd` until its last writer closes it."""
    chunks: list[bytes] = []
    while True:
        await anyio.wait_readable(fd)
        chunk = os.read(fd, READ_CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


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
    """TERM the group; after `grace` have the supervisor kill all; KILL the group; drain briefly."""
    signal_group(pgid, SIGTERM)
    with anyio.move_on_after(wait_limit(grace)) as graced:
        await drained.wait()
    if graced.cancelled_caught:
        sweep_now(pgid)
        with anyio.move_on_after(SWEEP_WAIT):
            await drained.wait()
    signal_group(pgid, SIGKILL)
    await exited.wait()
    with anyio.move_on_after(DRAIN_AFTER_KILL):
        await drained.wait()


@final
class _Pipes:
    """Where each read goes: its stream's capture, then the sink (one call at a time)."""

    __slots__ = ("_captures", "_output", "_turn")

    def __init__(
        self, stdout: BoundedCapture, stderr: BoundedCapture, output: OutputSink | None
    ) -> None:
        self._captures = {"stdout": stdout, "stderr": stderr}
        self._output = output
        self._turn = anyio.Lock()

    async def take(self, stream: OutputStream, chunk: bytes) -> None:
        """Capture `chunk`, and hand it to the sink once the previous read has been handed."""
        self._captures[stream].feed(chunk)
        if self._output is not None:
            with anyio.CancelScope(shield=True):
                async with self._turn:
                    await self._output(stream, chunk)


async def _follow(
    process: anyio.abc.Process, pipes: _Pipes, exited: anyio.Event, drained: anyio.Event
) -> None:
    """Drain both pipes and reap the process; `exited` when it is reaped, `drained` when all is."""
    assert process.stdout is not None
    async with anyio.create_task_group() as pumps:
        pumps.start_soon(_pump, process.stdout, "stdout", pipes)
        if process.stderr is not None:  # None: it is the stdout pipe
            pumps.start_soon(_pump, process.stderr, "stderr", pipes)
        await process.wait()
        exited.set()
    drained.set()


async def _pump(stream: anyio.abc.ByteReceiveStream, name: OutputStream, pipes: _Pipes) -> None:
    """Read `stream` to its end, each read to `pipes`."""
    try:
        while True:
            await pipes.take(name, await stream.receive(READ_CHUNK))
    except anyio.EndOfStream:
        return
