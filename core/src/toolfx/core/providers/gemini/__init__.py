"""Gemini generateContent round trips: its tool, its function calls, its function responses."""

from toolfx.core.providers.gemini._generate import (
    GeminiBlob,
    GeminiContent,
    GeminiDeclaration,
    GeminiFunctionResponse,
    GeminiPart,
    GeminiResponsePart,
    GeminiTool,
    calls,
    notes,
    results,
    tools,
)

__all__ = [
    "GeminiBlob",
    "GeminiContent",
    "GeminiDeclaration",
    "GeminiFunctionResponse",
    "GeminiPart",
    "GeminiResponsePart",
    "GeminiTool",
    "calls",
    "notes",
    "results",
    "tools",
]
