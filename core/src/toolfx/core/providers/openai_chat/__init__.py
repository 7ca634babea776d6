"""OpenAI Chat Completions round trips: its tool list, its tool calls, its tool messages."""

from toolfx.core.providers.openai_chat._chat import (
    CacheBreakpoint,
    ChatFunction,
    ChatMessage,
    ChatTextPart,
    ChatTool,
    ChatToolMessage,
    ChatUserMessage,
    calls,
    notes,
    results,
    tools,
)

__all__ = [
    "CacheBreakpoint",
    "ChatFunction",
    "ChatMessage",
    "ChatTextPart",
    "ChatTool",
    "ChatToolMessage",
    "ChatUserMessage",
    "calls",
    "notes",
    "results",
    "tools",
]
