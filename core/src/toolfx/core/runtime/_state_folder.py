"""Where a workspace's state lives: its own folder under the user's state directory.

Hosts and leaves agree on it: the leaves read it without asking, and a host keeps the runtime's
spills in its `outputs` folder (`spill_folder`). Pure: the environment is passed in.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Mapping
from typing import Final

__all__ = ["SPILLS", "spill_folder", "state_folder"]

SPILLS: Final = "outputs"
"""The state folder's subfolder for whole outputs cut for the model."""

_UNSAFE_NAME: Final = re.compile(r"[^A-Za-z0-9_.-]")


def state_folder(root: str, environ: Mapping[str, str]) -> str:
    """The workspace's own folder under the user's state directory (`XDG_STATE_HOME`, else
    `~/.local/state`): `toolfx/<name>-<hash of the root>`. ValueError when neither is set."""
    base = environ.get("XDG_STATE_HOME", "")
    if not posixpath.isabs(base):
        home = environ.get("HOME", "")
        if not posixpath.isabs(home):
            raise ValueError("no state directory: set XDG_STATE_HOME or HOME to an absolute path")
        base = posixpath.join(home, ".local", "state")
    folder = posixpath.normpath(root)
    name = _UNSAFE_NAME.sub("_", posixpath.basename(folder))[:40] or "root"
    digest = hashlib.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return posixpath.join(posixpath.normpath(base), "toolfx", f"{name}-{digest}")


def spill_folder(root: str, environ: Mapping[str, str]) -> str | None:
    """The workspace's spill folder (`<state folder>/outputs`); None with no state directory."""
    try:
        return posixpath.join(state_folder(root, environ), SPILLS)
    except ValueError:
        return None
