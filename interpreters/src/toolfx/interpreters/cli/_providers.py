"""The ways `toolfx` presents the installed tools, and their schemas in the forms models are
given them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, Literal

from toolfx.core.json import JsonValue, thaw_json
from toolfx.core.providers import ToolNote, anthropic_messages, gemini, openai_chat
from toolfx.core.registry import Catalog, PresentationMode

__all__ = ["PRESENTATIONS", "SchemaFormat", "export_schemas", "merged_notes"]

PRESENTATIONS: Final[Mapping[str, PresentationMode]] = {
    "native": "native",
    "code": "code",
    "both": "both",
}
"""Every way of presenting the tools by its name: as native tool calls, through Code Mode's
`run_code`, or both."""


SchemaFormat = Literal["json", "openai", "anthropic", "gemini"]
"""How `toolfx tools` prints the schemas: toolfx's own, or a provider's tool list."""


def export_schemas(catalog: Catalog, form: SchemaFormat) -> tuple[object, tuple[ToolNote, ...]]:
    """The catalog's native tool list in the given form (JSON-ready), and the notes on what the
    form could not keep."""
    if form == "openai":
        return list(openai_chat.tools(catalog)), openai_chat.notes(catalog)
    if form == "anthropic":
        return list(anthropic_messages.tools(catalog)), anthropic_messages.notes(catalog)
    if form == "gemini":  # one Tool of the REST API's `tools` list, in its JSON (camelCase)
        declarations = gemini.tools(catalog).get("function_declarations") or []
        return {"functionDeclarations": declarations}, gemini.notes(catalog)
    plain: list[JsonValue] = [
        {"name": s.name, "description": s.description, "parameters": thaw_json(s.parameters)}
        for s in catalog.native_schemas()
    ]
    return plain, ()


def merged_notes(notes: Iterable[ToolNote]) -> list[str]:
    """The notes as lines, each said once in the order first met: the same loss in several tools
    is one line naming them all (`bash, read: /additionalProperties: ...`)."""
    tools_of: dict[tuple[str, str], list[str]] = {}
    for note in notes:
        tools = tools_of.setdefault((note.path, note.reason), [])
        if note.tool not in tools:
            tools.append(note.tool)
    return [
        str(ToolNote(", ".join(tools), path, reason)) for (path, reason), tools in tools_of.items()
    ]
