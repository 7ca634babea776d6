"""What a tool name must match, and the error a definition that breaks a rule raises."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["TOOL_NAME_PATTERN", "ToolDefinitionError", "check_name"]

TOOL_NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a tool name (and a namespace) must match in full."""


class ToolDefinitionError(ValueError):
    """A tool definition that breaks a rule, naming the tool (when known) and the field."""

    __module__ = "toolfx.core"  # its public home, shown in tracebacks

    def __init__(self, tool: str | None, field_name: str, reason: str) -> None:
        where = field_name if tool is None else f"tool {tool!r}: {field_name}"
        super().__init__(f"{where}: {reason}")
        self.tool = tool
        self.field_name = field_name
        self.reason = reason


def check_name(tool: str, name: str, field_name: str) -> None:
    """Raise a ToolDefinitionError unless `name` is a valid tool name."""
    if not isinstance(name, str) or TOOL_NAME_PATTERN.fullmatch(name) is None:
        raise ToolDefinitionError(tool, field_name, f"{name!r} must match ^[A-Za-z0-9_-]{{1,64}}$")
