"""TEMPORARY minimal stubs (replaced by helper's module)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import final

from toolfx.core.json import FrozenJson

__all__ = ["CodeStubs", "StubTool", "code_stubs"]


@final
@dataclass(frozen=True, slots=True)
class StubTool:
    """One tool."""

    name: str
    description: str
    parameters: FrozenJson
    output: FrozenJson | None = None


@final
@dataclass(frozen=True, slots=True)
class CodeStubs:
    """Stubs."""

    text: str
    functions: Mapping[str, str]
    arguments: Mapping[str, Mapping[str, str]]


def code_stubs(tools: Sequence[StubTool]) -> CodeStubs:
    """Stubs."""
    lines = []
    for tool in tools:
        props = tool.parameters.get("properties", {}) if isinstance(tool.parameters, dict) else {}
        args = ", ".join(f"{p}: object" for p in props)
        lines.append(f"async def {tool.name}(*, {args}) -> object: ...")
    return CodeStubs("\n".join(lines), {t.name: t.name for t in tools}, {})
