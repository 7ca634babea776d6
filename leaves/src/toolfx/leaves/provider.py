"""The `toolfx.tools` entry point: the built-in leaves built from plain values (a root and rules
as parsed JSON), so a host such as the `toolfx` CLI gets them without importing toolfx.leaves."""

from __future__ import annotations

from typing import Any, cast, get_args

from toolfx.core import JsonValue, ToolDefinition
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.rules import parse_rules
from toolfx.leaves.sandbox import Sandbox, SandboxMode
from toolfx.leaves.tools import workspace_tools
from toolfx.leaves.workspace import Workspace

__all__ = ["builtin_tools"]


def builtin_tools(
    root: str, rules: JsonValue = None, *, sandbox: str = "auto", home: str | None = None
) -> tuple[ToolDefinition[Any, Any], ...]:
    """Every built-in leaf over a workspace at `root` (absolute), under `rules` (None: no rules).

    `rules` is a JSON list of `{"permission", "pattern", "action"}` objects; a malformed one
    raises `RuleError`, and a relative root raises ValueError. `sandbox` is the bash leaf's
    mode (auto, landlock, bwrap or off; another is a ValueError); `home` is the home folder
    whose secrets commands may not read.
    """
    permissions = Permissions(() if rules is None else parse_rules(rules))
    return workspace_tools(Workspace(root, permissions), Sandbox(_mode(sandbox), home))


def _mode(name: str) -> SandboxMode:
    for mode in get_args(SandboxMode):
        if name == mode:
            return cast("SandboxMode", mode)
    raise ValueError(f"unknown sandbox mode {name!r}: auto, landlock, bwrap or off")
