"""Provider tool lists: what pyright infers for the exports, and what it refuses."""

from typing import assert_type

from toolfx.core import (
    JsonValue,
    ProviderTools,
    Registry,
    ToolNote,
    ToolSchema,
    to_anthropic,
    to_gemini,
    to_openai,
)

catalog = Registry().catalog()
assert_type(to_openai(catalog), ProviderTools)
assert_type(to_openai(catalog).tools, tuple[dict[str, JsonValue], ...])
assert_type(to_gemini(catalog).notes, tuple[ToolNote, ...])
assert_type(to_anthropic([ToolSchema("t", "", {"type": "object"})]), ProviderTools)

to_openai(catalog, strict="yes")  # pyright: ignore[reportArgumentType]
to_openai(catalog, True)  # pyright: ignore[reportCallIssue]

exported = to_gemini(catalog)
exported.notes = ()  # pyright: ignore[reportAttributeAccessIssue]
note = ToolNote("t", "/a", "why")
note.reason = "x"  # pyright: ignore[reportAttributeAccessIssue]
