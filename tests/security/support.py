"""What the security tests share: the interpreters a real runner is run under, and confinements."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import pytest

from toolfx.core.runtime import (
    CancelSignal,
    Confinement,
    Description,
    ProcessOutcome,
    ProcessSpec,
    Runtime,
    SandboxMechanism,
)
from toolfx.interpreters._os.launch import available_sandboxes
from toolfx.interpreters.anyio import run_anyio
from toolfx.interpreters.sync import run_sync

__all__ = ["MECHANISMS", "Interpreter", "confinement_for", "mechanism_param", "run_spec"]

Interpreter = Literal["sync", "asyncio", "trio"]


def mechanism_param(name: str) -> object:
    """`name` as a test parameter, skipped (with the reason) where this machine lacks it.

    On CI (the CI variable set) bubblewrap is never skipped: `make test` installs it there.
    """
    reason = f"the {name} sandbox is not available on this machine"
    if name == "bwrap":
        reason += " (install bubblewrap: `make test` does on Debian and Ubuntu)"
    missing = name not in available_sandboxes()
    if name == "bwrap" and os.environ.get("CI"):  # `make test` installs it on CI: must run
        missing = False
    return pytest.param(name, marks=pytest.mark.skipif(missing, reason=reason))


MECHANISMS = (mechanism_param("landlock"), mechanism_param("bwrap"))
"""Each sandbox mechanism as a parameter, skipped where it is missing."""


def confinement_for(mechanism: SandboxMechanism | None, workspace: Path) -> Confinement | None:
    """`workspace` writable under `mechanism` (None: unconfined)."""
    return None if mechanism is None else Confinement(mechanism, (str(workspace),))


def run_spec(interpreter: Interpreter, spec: ProcessSpec, signal: CancelSignal) -> ProcessOutcome:
    """Run `spec` through the default runtime's runner of `interpreter`."""

    async def program(runtime: Runtime) -> ProcessOutcome:
        return await runtime.processes.run(spec, signal)

    if interpreter == "sync":
        return run_sync(Description(program))
    return run_anyio(Description(program), interpreter)
