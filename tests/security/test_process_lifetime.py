"""Every process a command starts ends with the call: normal exit, timeout and cancel, under the
sync runner and anyio on asyncio and trio, unconfined and in each sandbox this machine has.

The command leaves behind the ways a process outlives its parent: a background child with its
output sent to /dev/null, one holding the pipes, a `setsid` child, one ignoring SIGTERM and a
double-forked orphan. Each carries a unique marker as its argv[0]; once the call has returned,
/proc must hold no process with that marker.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Literal

import pytest

from tests.security.support import (
    MECHANISMS,
    Interpreter,
    confinement_for,
    run_spec,
)
from tests.support import marked
from toolfx.core import CancelSignal, ProcessSpec
from toolfx.core.processes import SandboxMechanism

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

_THEN: dict[Ending, str] = {"exit": "exit 0", "timeout": "sleep 300", "cancel": "sleep 300"}


def cancel_when_ready(signal: CancelSignal, ready: Path, done: threading.Event) -> None:
    """Set `signal` once the command says the leftovers run (polled, bounded), or it is over."""
    for _ in range(2000):
        if ready.exists() or done.wait(0.01):
            break
    signal.cancel("the test cancels")


@pytest.mark.parametrize("ending", ["exit", "timeout", "cancel"])
@pytest.mark.parametrize("mechanism", [None, *MECHANISMS])
def test_no_process_of_a_command_outlives_its_call(
    interpreter: Interpreter, ending: Ending, mechanism: SandboxMechanism | None, tmp_path: Path
) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    command = _LEAVE_BEHIND + _THEN[ending]
    spec = ProcessSpec(
        ("/bin/bash", "-c", command),
        str(tmp_path),
        timeout=5.0 if ending == "timeout" else 120.0,
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
    assert marked(marker) == []
