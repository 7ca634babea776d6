"""Every process a command starts ends with the call: normal exit, timeout and cancel, under the
sync runner and anyio on asyncio and trio, unconfined and in each sandbox this machine has.

The command leaves behind the ways a process outlives its parent: a background child with its
output sent to /dev/null, one holding the pipes, a `setsid` child, one ignoring SIGTERM and a
double-forked orphan; and a `setsid` child whose command then kills (SIGKILL) or stops
(SIGSTOP) its parent, the supervisor when nothing keeps it out of reach. Each carries a unique
marker as its argv[0]; once the call has returned, /proc must hold no process with that marker.
"""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path
from signal import SIGKILL
from typing import Literal

import pytest

from tests.security.figures import Figures
from tests.security.support import (
    MECHANISMS,
    Interpreter,
    confinement_for,
    run_spec,
)
from tests.support import marked, unmarked_soon
from toolfx.core.runtime import CancelSignal, ProcessSpec, SandboxMechanism

Ending = Literal["exit", "timeout", "cancel"]

_LEAVE_BEHIND = """
(exec -a "$MARK" sleep 300) >/dev/null 2>&1 &
(exec -a "$MARK" sleep 300) &
setsid bash -c 'exec -a "$MARK" sleep 300' >/dev/null 2>&1 &
(trap '' TERM; exec -a "$MARK" sleep 300) >/dev/null 2>&1 &
( (exec -a "$MARK" sleep 300) >/dev/null 2>&1 & ) >/dev/null 2>&1
for _ in $(seq 1000); do
  [ "$(grep -l -a "^$MARK" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)" -ge 5 ] && break
  sleep 0.01
done
echo ready
: > ready
"""
"""Start the leftovers, wait (bounded) until all five run, then say so."""

_TURN_ON_PARENT = """
setsid bash -c 'exec -a "$MARK" sleep 300' >/dev/null 2>&1 &
for _ in $(seq 1000); do
  grep -q -l -a "^$MARK" /proc/[0-9]*/cmdline 2>/dev/null && break
  sleep 0.01
done
kill -{signal} $PPID
echo ready
: > ready
"""
"""Start a `setsid` leftover, then kill or stop the command's parent, then say so."""

_THEN: dict[Ending, str] = {"exit": "exit 0", "timeout": "sleep 300", "cancel": "sleep 300"}


def cancel_when_ready(signal: CancelSignal, ready: Path, done: threading.Event) -> None:
    """Set `signal` once the command says the leftovers run, or it is over (polled; given up
    after some 60 s, a net against a hang)."""
    for _ in range(6000):
        if ready.exists() or done.wait(0.01):
            break
    signal.cancel("the test cancels")


@pytest.mark.parametrize("ending", ["exit", "timeout", "cancel"])
@pytest.mark.parametrize("mechanism", [None, *MECHANISMS])
def test_no_process_of_a_command_outlives_its_call(
    interpreter: Interpreter,
    ending: Ending,
    mechanism: SandboxMechanism | None,
    tmp_path: Path,
    figures: Figures,
) -> None:
    alive = _leftovers(interpreter, _LEAVE_BEHIND, ending, mechanism, tmp_path)
    figures.processes(ending, 1, alive)
    assert alive == 0


@pytest.mark.parametrize("signal_name", ["KILL", "STOP"])
@pytest.mark.parametrize("ending", ["exit", "cancel"])
@pytest.mark.parametrize("mechanism", [None, *MECHANISMS])
def test_killing_or_stopping_its_parent_frees_no_process(
    interpreter: Interpreter,
    signal_name: str,
    *,
    ending: Ending,
    mechanism: SandboxMechanism | None,
    tmp_path: Path,
    figures: Figures,
) -> None:
    command = _TURN_ON_PARENT.format(signal=signal_name)
    alive = _leftovers(interpreter, command, ending, mechanism, tmp_path)
    figures.processes(f"{ending} after SIG{signal_name} to the parent", 1, alive)
    assert alive == 0


@pytest.mark.parametrize("mechanism", [None, *MECHANISMS])
def test_killing_the_supervisor_from_outside_ends_every_process_of_the_command(
    interpreter: Interpreter, mechanism: SandboxMechanism | None, tmp_path: Path
) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    spec = ProcessSpec(
        ("/bin/bash", "-c", _LEAVE_BEHIND + "sleep 300"),
        str(tmp_path),
        timeout=120.0,
        output_limit=10_000,
        env={"MARK": marker, "PATH": "/usr/bin:/bin"},
        kill_grace=0.3,
        confinement=confinement_for(mechanism, tmp_path),
    )
    done = threading.Event()
    killer = threading.Thread(target=kill_supervisor, args=(marker, tmp_path / "ready", done))
    killer.start()
    try:
        outcome = run_spec(interpreter, spec, CancelSignal())
    finally:
        done.set()
        killer.join()
    assert (outcome.stdout.data, outcome.signal) == (b"ready\n", 9)
    # the namespace dies with its init, which dies with the supervisor: after it, not with it
    assert unmarked_soon(marker)


def kill_supervisor(marker: str, ready: Path, done: threading.Event) -> None:
    """SIGKILL the supervisor of the command that mentions `marker` once it is ready."""
    for _ in range(2000):
        if ready.exists() or done.wait(0.01):
            break
    mark = f"MARK={marker}".encode()
    for process in Path("/proc").glob("[0-9]*"):
        try:
            words = (process / "cmdline").read_bytes().split(b"\0")
            variables = (process / "environ").read_bytes().split(b"\0")
        except OSError:
            continue  # ended while listed
        if any(word.endswith(b"_supervisor.py") for word in words) and mark in variables:
            os.kill(int(process.name), SIGKILL)


def _leftovers(
    interpreter: Interpreter,
    setup: str,
    ending: Ending,
    mechanism: SandboxMechanism | None,
    tmp_path: Path,
) -> int:
    """Run `setup` then `ending` as one call; how many marked processes outlive it."""
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    command = setup + _THEN[ending]
    spec = ProcessSpec(
        ("/bin/bash", "-c", command),
        str(tmp_path),
        timeout=8.0 if ending == "timeout" else 120.0,  # the setup takes well under 1 s
        output_limit=10_000,
        env={"MARK": marker, "PATH": "/usr/bin:/bin"},
        kill_grace=0.3,
        confinement=confinement_for(mechanism, tmp_path),
    )
    signal, done = CancelSignal(), threading.Event()
    if ending == "cancel":
        threading.Thread(target=cancel_when_ready, args=(signal, tmp_path / "ready", done)).start()
    try:
        outcome = run_spec(interpreter, spec, signal)
    finally:
        done.set()
    assert outcome.stdout.data == b"ready\n"
    assert (outcome.timed_out, outcome.cancelled) == (ending == "timeout", ending == "cancel")
    return len(marked(marker))
