"""The JSON data model: value types, limits, and the typed error naming what was wrong and where.

Limits (`JsonLimits`, documented defaults): nesting at most 128 containers deep; a size budget of
32 MiB (the text's length for `parse_json`; for `snapshot_json`, one per value plus the length of
every string and every object key); integers of at most 4,300 decimal digits (Python's own
int-to-text limit, which the validator relies on). Integers within it keep every digit.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, final

from typing_extensions import TypeAliasType

__all__ = [
    "DEFAULT_LIMITS",
    "INT_BOUND",
    "MAX_INT_DIGITS",
    "NEGATIVE_INT_BOUND",
    "FrozenJson",
    "JsonError",
    "JsonErrorKind",
    "JsonLimits",
    "JsonValue",
    "json_pointer",
]

JsonValue = TypeAliasType(
    "JsonValue", "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
)
"""Any JSON value as plain Python data: what users write and json.loads returns."""

FrozenJson = TypeAliasType(
    "FrozenJson",
    "str | int | float | bool | Sequence[FrozenJson] | Mapping[str, FrozenJson] | None",
)
"""A read-only view of JSON; values from `snapshot_json` and `parse_json` are deep-frozen."""


@final
@dataclass(frozen=True, slots=True)
class JsonLimits:
    """Bounds on incoming JSON: nesting depth and a size budget (see the module docstring)."""

    max_depth: int = 128
    max_size: int = 32 * 1024 * 1024


DEFAULT_LIMITS: Final = JsonLimits()
"""The documented default limits."""

MAX_INT_DIGITS: Final = 4300
"""The most decimal digits an integer may have: Python's default int-to-text limit."""

INT_BOUND: Final[int] = 10**MAX_INT_DIGITS
"""A JSON integer lies strictly between NEGATIVE_INT_BOUND and INT_BOUND."""

NEGATIVE_INT_BOUND: Final[int] = -INT_BOUND
"""-INT_BOUND, computed once: negating a 4,300-digit integer on every check is not free."""


@final
class JsonErrorKind(enum.Enum):
    """Why a value is not lossless JSON."""

    SYNTAX = "syntax"
    NOT_FINITE = "not_finite"
    NON_STR_KEY = "non_str_key"
    DUPLICATE_KEY = "duplicate_key"
    CYCLE = "cycle"
    UNSUPPORTED_TYPE = "unsupported_type"
    INVALID_STRING = "invalid_string"
    TOO_DEEP = "too_deep"
    TOO_LARGE = "too_large"


@final
@dataclass(frozen=True, slots=True)
class JsonError:
    """A value that is not lossless JSON: what was wrong and where (a JSON pointer; "" = root)."""

    kind: JsonErrorKind
    path: str
    reason: str

    def __str__(self) -> str:
        where = self.path if self.path else "the root"
        return f"{self.reason} at {where}"


def json_pointer(segments: Sequence[str | int]) -> str:
    """Render path segments as an RFC 6901 JSON pointer."""
    return "".join("/" + str(s).replace("~", "~0").replace("/", "~1") for s in segments)
