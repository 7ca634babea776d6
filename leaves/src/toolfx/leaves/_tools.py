"""Every built-in leaf for one workspace, and the `toolfx.tools` entry point that builds them.

`builtin_tools` takes plain values (a root and rules as parsed JSON), so a host such as the
`toolfx` CLI gets the leaves without importing toolfx.leaves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolfx.core.json import JsonValue
from toolfx.core.runtime import SANDBOX_MODES, SandboxMode, state_folder
from toolfx.core.tools import ToolDefinition
from toolfx.leaves._rules import parse_rules
from toolfx.leaves.bash import bash_tool
from toolfx.leaves.edit import edit_tool
from toolfx.leaves.glob import glob_tool
from toolfx.leaves.grep import grep_tool
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.read import read_tool
from toolfx.leaves.sandbox import Sandbox
from toolfx.leaves.workspace import Workspace
from toolfx.leaves.write import write_tool

__all__ = ["builtin_tools", "workspace_tools"]


def workspace_tools(
    workspace: Workspace, sandbox: Sandbox | None = None
) -> tuple[ToolDefinition[Any, Any], ...]:
    """The built-in leaves bound to `workspace`, in the order a model sees them listed; bash
    commands run in `sandbox` (see `bash_tool`)."""
    return (
        read_tool(workspace),
        write_tool(workspace),
        edit_tool(workspace),
        glob_tool(workspace),
        grep_tool(workspace),
        bash_tool(workspace, sandbox=sandbox),
    )


def builtin_tools(
    root: str,
    rules: JsonValue = None,
    *,
    sandbox: str = "auto",
    environ: Mapping[str, str] | None = None,
) -> tuple[ToolDefinition[Any, Any], ...]:
    """Every built-in leaf over a workspace at `root` (absolute), under `rules` (None: no rules).

    `rules` is a JSON list of `{"permission", "pattern", "action"}` objects; a malformed one
    raises `RuleError`, and a relative root raises ValueError. `sandbox` is the bash leaf's
    mode (auto, landlock, bwrap or off; another is a ValueError). `environ` (the host's
    environment) places the state folder (`state_folder`) and names the home folder whose
    secrets commands may not read; None: no state folder and, with no home to
    protect, the sandbox is unavailable (every command asks).
    """
    permissions = Permissions(() if rules is None else parse_rules(rules))
    state_dir = None if environ is None else state_folder(root, environ)
    home = None if environ is None else environ.get("HOME") or None
    workspace = Workspace(root, permissions, state_dir=state_dir)
    return workspace_tools(workspace, Sandbox(_mode(sandbox), home))


_MODES: Final[dict[str, SandboxMode]] = {mode: mode for mode in SANDBOX_MODES}


def _mode(name: str) -> SandboxMode:
    if name in _MODES:
        return _MODES[name]
    raise ValueError(f"unknown sandbox mode {name!r}: auto, landlock, bwrap or off")
