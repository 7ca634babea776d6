"""The error a tool definition (or one of its settings) that breaks a rule raises."""

from __future__ import annotations

__all__ = ["ToolDefinitionError"]


class ToolDefinitionError(ValueError):
    """A tool definition that breaks a rule, naming the tool (when known) and the field."""

    __module__ = "toolfx.core"  # its public home, shown in tracebacks

    def __init__(self, tool: str | None, field_name: str, reason: str) -> None:
        where = field_name if tool is None else f"tool {tool!r}: {field_name}"
        super().__init__(f"{where}: {reason}")
        self.tool = tool
        self.field_name = field_name
        self.reason = reason
