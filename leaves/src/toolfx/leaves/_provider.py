"""The `toolfx.tools` entry point: the built-in leaves built from plain values (a root and rules
as parsed JSON), so a host such as the `toolfx` CLI gets them without importing toolfx.leaves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolfx.core.json import JsonValue
from toolfx.core.runtime import SANDBOX_MODES, SandboxMode, state_folder
from toolfx.core.tools import ToolDefinition
from toolfx.leaves._rules import parse_rules
from toolfx.leaves._tools import workspace_tools
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.sandbox import Sandbox
from toolfx.leaves.workspace import Workspace

__all__ = ["builtin_tools"]


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
