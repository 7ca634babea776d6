"""What checking a raw JSON Schema reports: the profiles, one problem, and every problem at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, final

from toolfx.core.json import json_pointer

__all__ = ["JsonSchemaError", "Problems", "Profile", "SchemaProblem"]

Profile: TypeAlias = Literal["portable", "full"]
"""`portable`: the spec's enforced subset; `full`: every Draft 2020-12 keyword really enforced."""


@final
@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One unsupported or malformed place in a raw schema: a JSON pointer and what is wrong."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path if self.path else '(root)'}: {self.reason}"


@final
@dataclass(frozen=True, slots=True)
class JsonSchemaError:
    """Every problem found in a raw schema, not just the first."""

    problems: tuple[SchemaProblem, ...]

    def __str__(self) -> str:
        count = len(self.problems)
        head = f"the JSON Schema has {count} problem{'' if count == 1 else 's'}:"
        return "\n".join([head, *(f"- {problem}" for problem in self.problems)])


@final
@dataclass(slots=True)
class Problems:
    """Internal: collects problems during one walk over a schema."""

    items: list[SchemaProblem] = field(default_factory=list)

    def add(self, at: Sequence[str | int], reason: str) -> None:
        """Record a problem at the schema location `at` (path segments)."""
        self.items.append(SchemaProblem(json_pointer(at), reason))
