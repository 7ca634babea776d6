"""OpenAI Responses API round trips: its tool list, its function calls, their outputs."""

from toolfx.core.providers.openai_responses._responses import (
    ResponsesCallOutput,
    ResponsesInputItem,
    ResponsesMessage,
    ResponsesTool,
    calls,
    notes,
    results,
    tools,
)

__all__ = [
    "ResponsesCallOutput",
    "ResponsesInputItem",
    "ResponsesMessage",
    "ResponsesTool",
    "calls",
    "notes",
    "results",
    "tools",
]
