"""Tool providers: the factories installed under the `toolfx.tools` entry point group, the
catalog they make for one workspace, and its schemas in the forms models are given them."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any, Final, Literal, Protocol

from toolfx.core.json import JsonValue, thaw_json
from toolfx.core.providers import ToolNote, anthropic_messages, gemini, openai_chat
from toolfx.core.registry import Catalog, Location, PresentationMode, Registry
from toolfx.core.runtime import SandboxMode
from toolfx.core.tools import ToolDefinition

__all__ = [
    "GROUP",
    "PRESENTATIONS",
    "ProviderError",
    "SchemaFormat",
    "ToolProvider",
    "export_schemas",
    "load_catalog",
    "merged_notes",
]

GROUP: Final = "toolfx.tools"
"""The entry point group tool providers register under."""

PRESENTATIONS: Final[Mapping[str, PresentationMode]] = {
    "native": "native",
    "code": "code",
    "both": "both",
}
"""Every way of presenting the tools by its name: as native tool calls, through Code Mode's
`run_code`, or both."""


class ToolProvider(Protocol):
    """A provider: the tools over a workspace root (absolute), under permission rules (JSON),
    with commands confined as `sandbox` says, `environ` the host's environment
    (where the state folder goes, and the home folder whose secrets commands may not read)."""

    def __call__(
        self,
        root: str,
        rules: JsonValue,
        /,
        *,
        sandbox: SandboxMode,
        environ: Mapping[str, str],
    ) -> Sequence[ToolDefinition[Any, Any]]:
        """The tools."""
        ...


SchemaFormat = Literal["json", "openai", "anthropic", "gemini"]
"""How `toolfx tools` prints the schemas: toolfx's own, or a provider's tool list."""


class ProviderError(RuntimeError):
    """No provider is installed, or one failed to load or to build its tools."""


def load_catalog(
    root: str,
    rules: JsonValue = None,
    sandbox: SandboxMode = "auto",
    environ: Mapping[str, str] | None = None,
    present: PresentationMode = "native",
) -> Catalog:
    """Every installed provider's tools over `root` under `rules` and `sandbox`, in one catalog
    presented as `present` (under `code` and `both` it offers `run_code` over them).

    `environ` (default: this process's environment) is handed to each provider.

    Providers are taken in the order of their entry point names; one that refuses the root or
    the rules (a ValueError) is a `ProviderError` naming it.
    """
    found = sorted(entry_points(group=GROUP), key=lambda point: point.name)
    if not found:
        raise ProviderError(f"no tool provider is installed (entry point group {GROUP!r})")
    location = Location(Registry(default_mode=present))
    for point in found:
        provider: ToolProvider = point.load()
        try:
            definitions = provider(
                root, rules, sandbox=sandbox, environ=os.environ if environ is None else environ
            )
        except ValueError as error:
            raise ProviderError(f"the tool provider {point.name!r} refused: {error}") from None
        for definition in definitions:
            location.register(definition)
    return location.catalog()


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
