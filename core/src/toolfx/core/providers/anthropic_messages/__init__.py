"""Anthropic Messages round trips: its tool list, its tool_use blocks, its tool results."""

from toolfx.core.providers.anthropic_messages._messages import (
    AnthropicCacheControl,
    AnthropicTool,
    AnthropicToolResult,
    AnthropicUserMessage,
    calls,
    notes,
    results,
    tools,
)

__all__ = [
    "AnthropicCacheControl",
    "AnthropicTool",
    "AnthropicToolResult",
    "AnthropicUserMessage",
    "calls",
    "notes",
    "results",
    "tools",
]
