"""Every built-in leaf for one workspace: the `toolfx.tools` entry point's factory."""

from __future__ import annotations

from typing import Any

from toolfx.core.tools import ToolDefinition
from toolfx.leaves.bash import bash_tool
from toolfx.leaves.edit import edit_tool
from toolfx.leaves.glob import glob_tool
from toolfx.leaves.grep import grep_tool
from toolfx.leaves.read import read_tool
from toolfx.leaves.sandbox import Sandbox
from toolfx.leaves.workspace import Workspace
from toolfx.leaves.write import write_tool

__all__ = ["workspace_tools"]


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
