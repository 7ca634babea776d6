"""Model-facing names for a server's tools: `<namespace>_<tool>`, sanitised and capped, stably.

A model-facing name must match `^[A-Za-z0-9_-]{1,64}$`. Characters outside that set become `_`;
a name that is still too long is cut and given `_` plus the first 8 hex digits of the SHA-256 of
the server's original name, so the same server tool always gets the same model-facing name.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Final, final

from toolfx.core.tools import TOOL_NAME_PATTERN

__all__ = [
    "HASH_LENGTH",
    "MAX_NAMESPACE_LENGTH",
    "MAX_NAME_LENGTH",
    "ToolName",
    "check_namespace",
    "tool_name",
]

MAX_NAME_LENGTH: Final = 64
"""The longest model-facing name, namespace included."""

HASH_LENGTH: Final = 8
"""How many hex digits of the original name's SHA-256 end a shortened name."""

MAX_NAMESPACE_LENGTH: Final = MAX_NAME_LENGTH - HASH_LENGTH - 3
"""The longest namespace that leaves room for `_`, one character, `_` and the hash."""

_OUTSIDE: Final = re.compile(r"[^A-Za-z0-9_-]")


@final
@dataclass(frozen=True, slots=True)
class ToolName:
    """A server tool's name in toolfx: the part after the namespace, and how it was made."""

    name: str
    sanitised: bool
    shortened: bool


def tool_name(namespace: str, original: str) -> ToolName:
    """The tool part of `<namespace>_<tool>` for the server tool named `original`."""
    name = _OUTSIDE.sub("_", original) or "_"
    budget = MAX_NAME_LENGTH - len(namespace) - 1
    if len(name) <= budget:
        return ToolName(name, name != original, shortened=False)
    digest = hashlib.sha256(original.encode("utf-8", "surrogatepass")).hexdigest()
    shortened = f"{name[: budget - HASH_LENGTH - 1]}_{digest[:HASH_LENGTH]}"
    return ToolName(shortened, _OUTSIDE.search(original) is not None, shortened=True)


def check_namespace(namespace: str) -> None:
    """Refuse a namespace that is malformed or leaves no room for tool names."""
    if TOOL_NAME_PATTERN.fullmatch(namespace) is None or len(namespace) > MAX_NAMESPACE_LENGTH:
        raise ValueError(
            f"MCP namespace {namespace!r} must match ^[A-Za-z0-9_-]+$ and have at most "
            f"{MAX_NAMESPACE_LENGTH} characters"
        )
