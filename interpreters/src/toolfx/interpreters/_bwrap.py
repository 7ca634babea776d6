"""bubblewrap: the argv that runs a command in a namespace a `Confinement` describes, and the probe.

The whole tree is mounted read-only; each writable folder is bound writable and each read-only
folder inside it bound read-only again; each hidden folder is covered by an empty tmpfs and each
hidden file by /dev/null; the call's temporary folder is the sandbox's /tmp. Capabilities are
dropped (a root command could otherwise remount), the network is unshared unless allowed, the
command gets its own pid namespace and session, and dies with the supervisor.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from typing import Final

from toolfx.core.processes import Confinement

__all__ = ["SANDBOX_TMP", "bwrap_argv", "bwrap_path"]

SANDBOX_TMP: Final = "/tmp"
"""Where the call's temporary folder is seen inside the namespace."""

_BASE: Final = (
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
)


def bwrap_argv(
    bwrap: str, confinement: Confinement, temp: str, cwd: str, argv: tuple[str, ...]
) -> tuple[str, ...]:
    """The bubblewrap command that runs `argv` in `cwd` confined as `confinement` says."""
    options = [bwrap, *_BASE, "--bind", temp, SANDBOX_TMP]
    if not confinement.network:
        options.append("--unshare-net")
    for folder in confinement.writable:
        options += ("--bind", folder, folder)
    for path in confinement.read_only:
        if os.path.lexists(path):
            options += ("--ro-bind", path, path)
    for path in confinement.hidden:
        if os.path.isdir(path) and not os.path.islink(path):
            options += ("--tmpfs", path, "--remount-ro", path)
        elif os.path.lexists(path):
            options += ("--ro-bind", "/dev/null", path)
    return (*options, "--chdir", cwd, "--", *argv)


@functools.cache
def bwrap_path() -> str | None:
    """The bubblewrap program, if it is installed and can make a namespace here (probed once)."""
    found = shutil.which("bwrap")
    if found is None:
        return None
    probe = (found, *_BASE, "--unshare-net", "--", "/bin/true")
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return found if done.returncode == 0 else None
