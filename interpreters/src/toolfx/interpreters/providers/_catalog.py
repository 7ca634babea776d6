"""Tool providers: the factories installed under the `toolfx.tools` entry point group, and the
catalog they make for one workspace (what the CLI, `mcp serve` and remote workers load)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any, Final, Protocol

from toolfx.core.json import JsonValue
from toolfx.core.registry import Catalog, Location, PresentationMode, Registry
from toolfx.core.runtime import SandboxMode
from toolfx.core.tools import ToolDefinition

__all__ = ["GROUP", "ProviderError", "ToolProvider", "load_catalog"]

GROUP: Final = "toolfx.tools"
"""The entry point group tool providers register under."""


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
