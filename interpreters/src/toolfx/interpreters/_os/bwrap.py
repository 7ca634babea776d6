"""bubblewrap: the argv that runs a command in a namespace a `Confinement` describes, and the probe.

The whole tree is mounted read-only; each writable folder is bound writable and each read-only
folder inside it bound read-only again; each hidden folder is covered by an empty tmpfs and each
hidden file by /dev/null, where it resolves to; the call's temporary folder is the sandbox's
/tmp. Capabilities are dropped (a root command could otherwise remount), the network is
unshared unless allowed, the command gets its own pid namespace and session, and dies with the
supervisor.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from typing import Final

from toolfx.core.runtime import Confinement

__all__ = ["SANDBOX_TMP", "bwrap_argv", "bwrap_path", "placeholders"]

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
    """The bubblewrap command that runs `argv` in `cwd` confined as `confinement` says.

    Every read-only and hidden path is mounted on where it resolves to (a secret reached through
    a symlink is hidden where it lives, which covers the link too). A read-only path that does
    not exist yet inside a writable folder (a workspace without `.git`) is held by an empty
    read-only folder mounted there, so the command cannot create it; bubblewrap makes the mount
    point, which `placeholders` names so the runner removes it after the call.
    """
    options = [bwrap, *_BASE, "--bind", temp, SANDBOX_TMP]
    if not confinement.network:
        options.append("--unshare-net")
    for folder in confinement.writable:
        options += ("--bind", folder, folder)
    empty = os.path.join(temp, ".toolfx-empty")  # not under SANDBOX_TMP: never seen as /tmp
    missing = placeholders(confinement)
    for path in _resolved(confinement.read_only):
        if os.path.lexists(path):
            options += ("--ro-bind", path, path)
        elif path in missing:
            os.makedirs(empty, exist_ok=True)
            options += ("--ro-bind", empty, path)
    for path in _resolved(confinement.hidden):
        if os.path.isdir(path):
            options += ("--tmpfs", path, "--remount-ro", path)
        elif os.path.lexists(path):
            options += ("--ro-bind", "/dev/null", path)
    return (*options, "--chdir", cwd, "--", *argv)


def _resolved(paths: tuple[str, ...]) -> list[str]:
    """Where each path resolves to, once each, in order."""
    return list(dict.fromkeys(os.path.realpath(path) for path in paths))


def placeholders(confinement: Confinement) -> tuple[str, ...]:
    """The missing read-only paths inside a writable folder: each gets an empty read-only mount
    point that bubblewrap creates, to be removed once the call is over."""
    return tuple(
        path
        for path in _resolved(confinement.read_only)
        if not os.path.lexists(path)
        and any(_below(path, os.path.realpath(place)) for place in confinement.writable)
    )


def _below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


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
