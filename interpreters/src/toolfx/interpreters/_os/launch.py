"""How a runner starts a command: under the supervisor, confined as asked, with its own temp folder.

On Linux every command runs under `_supervisor.py` (see there), which ends every process the
command leaves behind; Landlock rules go to the supervisor in its policy, bubblewrap wraps the
command, and the environment's variables it hides are removed. Each call gets a private
temporary folder (TMPDIR, TMP and TEMP), writable inside the
sandbox and removed after the call. A confinement this machine cannot enforce is a
`ProcessError` before anything starts.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, final

from toolfx.core.runtime import Confinement, ProcessError, ProcessSpec, SandboxMechanism
from toolfx.interpreters._os import _landlock
from toolfx.interpreters._os._supervisor import STATUS_OK
from toolfx.interpreters._os.bwrap import SANDBOX_TMP, bwrap_argv, bwrap_path, placeholders

__all__ = ["Launch", "available_sandboxes", "launch", "started"]

SUPERVISED: Final = sys.platform == "linux"
"""Whether commands run under the supervisor (it needs Linux's subreaper and /proc)."""

_SUPERVISOR: Final = str(Path(__file__).with_name("_supervisor.py"))


@functools.cache
def available_sandboxes() -> frozenset[SandboxMechanism]:
    """The mechanisms that work on this machine: probed once per process."""
    if not SUPERVISED:
        return frozenset()
    found: set[SandboxMechanism] = set()
    if _landlock.abi_version() >= 1:
        found.add("landlock")
    if bwrap_path() is not None:
        found.add("bwrap")
    return frozenset(found)


@final
@dataclass(frozen=True, slots=True)
class Launch:
    """What to start for one spec, and the call's resources: its temp folder, the status pipe."""

    argv: tuple[str, ...]
    env: dict[str, str]
    temp: str
    status: int | None
    """The read end of the supervisor's status pipe (None: no supervisor)."""
    handed: tuple[int, ...]
    """The fds the child inherits (the status pipe's write end), closed here once started."""
    placeholders: tuple[str, ...] = ()
    """Empty mount points made for missing read-only paths, removed after the call."""

    def close_handed(self) -> None:
        """Close this side's copy of the fds the child inherited."""
        for fd in self.handed:
            os.close(fd)

    def finish(self) -> None:
        """Close the status pipe, remove the temp folder with all the command left in it and
        the empty mount points made for read-only paths that did not exist."""
        if self.status is not None:
            os.close(self.status)
        shutil.rmtree(self.temp, ignore_errors=True)
        for path in self.placeholders:
            with contextlib.suppress(OSError):  # gone, or no longer empty: not ours to remove
                os.rmdir(path)


def launch(spec: ProcessSpec, argv: tuple[str, ...]) -> Launch:
    """The launch of `argv` for `spec`; ProcessError if its confinement cannot be enforced."""
    confinement = spec.confinement
    if confinement is not None and (reason := _unenforceable(confinement)) is not None:
        raise ProcessError(spec.argv, reason)
    temp = tempfile.mkdtemp(prefix="toolfx-call-")
    inside_temp = SANDBOX_TMP if _mechanism(confinement) == "bwrap" else temp
    env = _visible(os.environ if spec.env is None else spec.env, confinement)
    env.update(TMPDIR=inside_temp, TMP=inside_temp, TEMP=inside_temp)
    if not SUPERVISED:
        return Launch(argv, env, temp, None, ())
    made: tuple[str, ...] = ()
    if confinement is not None and confinement.mechanism == "bwrap":
        bwrap = bwrap_path()
        assert bwrap is not None  # available_sandboxes() said so
        made = placeholders(confinement)
        argv = bwrap_argv(bwrap, confinement, temp, spec.cwd, argv)
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    policy = {
        "parent": os.getpid(),
        "status_fd": write_end,
        "landlock": _landlock_policy(confinement, temp),
    }
    supervisor = (sys.executable, "-I", "-S", _SUPERVISOR, json.dumps(policy), "--")
    return Launch((*supervisor, *argv), env, temp, read_end, (write_end,), made)


def started(spec: ProcessSpec, status: bytes) -> None:
    """Check what the supervisor reported on its status pipe; ProcessError unless it started."""
    if status == STATUS_OK:
        return
    reason = status.decode("utf-8", "replace") or "the supervisor ended before starting it"
    raise ProcessError(spec.argv, reason)


def _unenforceable(confinement: Confinement) -> str | None:
    """Why this machine cannot enforce `confinement`; None when it can."""
    mechanism = confinement.mechanism
    if mechanism not in available_sandboxes():
        return f"the {mechanism} sandbox is not available on this machine"
    if mechanism == "landlock" and not confinement.network and (abi := _landlock.abi_version()) < 4:
        return (
            f"the landlock sandbox cannot turn the network off on this kernel (Landlock ABI {abi};"
            " network rules need ABI 4, Linux 6.7): allow the network or use bwrap"
        )
    return None


def _visible(env: Mapping[str, str], confinement: Confinement | None) -> dict[str, str]:
    """The environment less the variables the confinement hides (names compared in upper case)."""
    hidden = () if confinement is None else confinement.hidden_variables
    patterns = [pattern.upper() for pattern in hidden]
    return {
        name: value
        for name, value in env.items()
        if not any(fnmatch.fnmatchcase(name.upper(), pattern) for pattern in patterns)
    }


def _mechanism(confinement: Confinement | None) -> SandboxMechanism | None:
    return None if confinement is None else confinement.mechanism


def _landlock_policy(confinement: Confinement | None, temp: str) -> dict[str, object] | None:
    if confinement is None or confinement.mechanism != "landlock":
        return None
    return {
        "writable": [*confinement.writable, temp],
        "read_only": list(confinement.read_only),
        "hidden": list(confinement.hidden),
        "network": confinement.network,
    }
