"""The `toolfx.tools` entry point: the built-in leaves built from plain values (a root and rules
as parsed JSON), so a host such as the `toolfx` CLI gets them without importing toolfx.leaves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfx.core import JsonValue, ToolDefinition
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.rules import parse_rules
from toolfx.leaves.tools import workspace_tools
from toolfx.leaves.workspace import Workspace, state_folder

__all__ = ["builtin_tools"]


def builtin_tools(
    root: str, rules: JsonValue = None, environ: Mapping[str, str] | None = None
) -> tuple[ToolDefinition[Any, Any], ...]:
    """Every built-in leaf over a workspace at `root` (absolute), under `rules` (None: no rules).

    `rules` is a JSON list of `{"permission", "pattern", "action"}` objects; a malformed one
    raises `RuleError`, and a relative root raises ValueError. `environ` (the host's
    environment) places the state folder (`state_folder`); None: cut outputs are not saved.
    """
    permissions = Permissions(() if rules is None else parse_rules(rules))
    state_dir = None if environ is None else state_folder(root, environ)
    return workspace_tools(Workspace(root, permissions, state_dir=state_dir))
