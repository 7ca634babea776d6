"""Catalogs exported for OpenAI, Anthropic and Gemini, and results rendered back for them.

Catalogs exported for model providers (OpenAI, Anthropic, Gemini) and results rendered back for
them.
"""

from toolfx.core.providers._nulls import undo_strict_nulls
from toolfx.core.providers._openai import OPENAI_LIMITS, OpenAILimits
from toolfx.core.providers._results import (
    anthropic_result_content,
    gemini_function_response,
    openai_result_content,
)
from toolfx.core.providers._tools import (
    ProviderTools,
    ToolNote,
    ToolSource,
    to_anthropic,
    to_gemini,
    to_openai,
)

__all__ = [
    "OPENAI_LIMITS",
    "OpenAILimits",
    "ProviderTools",
    "ToolNote",
    "ToolSource",
    "anthropic_result_content",
    "gemini_function_response",
    "openai_result_content",
    "to_anthropic",
    "to_gemini",
    "to_openai",
    "undo_strict_nulls",
]
