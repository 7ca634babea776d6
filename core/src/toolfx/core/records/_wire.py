"""The wire kit of durable records: the typed decoding error and strict readers that locate it.

Readers raise `Invalid` (internal) at the bad place; each enclosing reader adds its own segment
while the exception travels out, and `decoding` turns it into a `RecordError` with the full JSON
pointer. Objects are closed: every key must be known, required keys must be present, and an
optional key, when present, must hold its type (`null` only where the type allows it). Encoders
build plain dicts and `freeze` snapshots them once, so every output is deep-frozen and JSON-safe.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TypeVar, final

from returns.result import Failure, Result, Success

from toolfx.core.json import (
    MAX_INT_DIGITS,
    FrozenDict,
    FrozenList,
    describe_value,
    json_pointer,
    render_literal,
    snapshot_json,
)

if TYPE_CHECKING:
    from toolfx.core.json import (
        FrozenJson,
    )

__all__ = [
    "Invalid",
    "RecordError",
    "array",
    "as_bool",
    "as_int",
    "as_int_or_null",
    "as_json",
    "as_seconds",
    "as_str",
    "as_str_or_null",
    "decoding",
    "field",
    "freeze",
    "optional",
    "read_object",
    "read_tag",
]

_T = TypeVar("_T")
_D = TypeVar("_D")
_INT_BOUND: Final = 10**MAX_INT_DIGITS


@final
@dataclass(frozen=True, slots=True)
class RecordError:
    """A value that is not a valid durable record: where (a JSON pointer; "" = root) and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        where = self.path if self.path else "the root"
        return f"{self.reason} at {where}"


class Invalid(Exception):
    """Internal: a reader found a bad value; `segments` grow (innermost first) on the way out."""

    def __init__(
        self, reason: str, segments: list[str | int] | None = None, tail: str = ""
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.segments: list[str | int] = [] if segments is None else segments
        self.tail = tail

    def error(self) -> RecordError:
        """The problem as a record error with its full JSON pointer."""
        return RecordError(json_pointer(self.segments[::-1]) + self.tail, self.reason)


def decoding(decode: Callable[[object], _T], value: object) -> Result[_T, RecordError]:
    """Run a reader on any value: its result, or the first problem as a RecordError."""
    try:
        return Success(decode(value))
    except Invalid as invalid:
        return Failure(invalid.error())


def freeze(plain: object) -> FrozenJson:
    """Deep-freeze an encoder's output; a field that is not lossless JSON raises ValueError."""
    frozen = snapshot_json(plain)
    if isinstance(frozen, Success):
        result: FrozenJson = frozen.unwrap()
        return result
    raise ValueError(f"cannot encode the record: {frozen.failure()}")


def _expected(what: str, value: object) -> Invalid:
    if value is None or isinstance(value, str | int | float | list | dict):
        return Invalid(f"expected {what}, found {describe_value(value)}")
    return Invalid(f"expected {what}, found a {type(value).__name__}, which is not JSON")


def as_str(value: object) -> str:
    """A JSON string (valid UTF-8)."""
    if not isinstance(value, str):
        raise _expected("string", value)
    text = str.__str__(value)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise Invalid(
                f"the string holds a lone surrogate (\\u{ord(text[exc.start]):04x})"
            ) from None
    return text


def as_str_or_null(value: object) -> str | None:
    """A JSON string or null."""
    return None if value is None else as_str(value)


def as_int(value: object) -> int:
    """A JSON integer (not a boolean, not a float) within the digit limit."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise _expected("integer", value)
    if not -_INT_BOUND < value < _INT_BOUND:
        raise Invalid(f"the integer has more than {MAX_INT_DIGITS} digits")
    return int(value)


def as_seconds(value: object) -> float:
    """A JSON number of seconds: finite and not negative."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise _expected("number of seconds", value)
    if not 0 <= value < float("inf"):
        raise Invalid(f"expected a finite, non-negative number of seconds, found {value!r}")
    return float(value)


def as_int_or_null(value: object) -> int | None:
    """A JSON integer (see `as_int`) or null."""
    return None if value is None else as_int(value)


def as_bool(value: object) -> bool:
    """A JSON boolean."""
    if not isinstance(value, bool):
        raise _expected("boolean", value)
    return value


def as_json(value: object) -> FrozenJson:
    """Any lossless JSON value, deep-frozen (values from parse_json are taken as they are)."""
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList:
        return value  # type: ignore[return-value]  # only toolfx builds these, already checked
    frozen = snapshot_json(value)
    if isinstance(frozen, Success):
        result: FrozenJson = frozen.unwrap()
        return result
    problem = frozen.failure()
    raise Invalid(problem.reason, tail=problem.path)


def read_object(
    value: object, required: Collection[str], optional: Collection[str] = ()
) -> Mapping[str, object]:
    """A JSON object with every required key and no key outside required and optional."""
    if not isinstance(value, dict):
        raise _expected("object", value)
    for key in value:
        if not isinstance(key, str):
            raise Invalid(f"object key {key!r} is not a string")
        if key not in required and key not in optional:
            raise Invalid(
                f"unexpected key {render_literal(key)}{_meant(key, required, optional)}", [key]
            )
    for key in required:
        if key not in value:
            raise Invalid(f"missing required key {render_literal(key)}")
    return value


def _meant(key: str, required: Collection[str], optional: Collection[str]) -> str:
    """` (did you mean 'k'?)` for the known key closest to a misspelled one, or ""."""
    close = difflib.get_close_matches(key, [*required, *optional], n=1, cutoff=0.75)
    return f" (did you mean {render_literal(close[0])}?)" if close else ""


def read_tag(value: object, key: str, known: Collection[str], what: str) -> str:
    """The discriminator of a tagged object: present, a string, and one of `known`."""
    if not isinstance(value, dict):
        raise _expected("object", value)
    if key not in value:
        raise Invalid(f"missing required key {render_literal(key)}")
    tag = field(value, key, as_str)
    if tag not in known:
        raise Invalid(f"unknown {what} {render_literal(tag)}", [key])
    return tag


def field(obj: Mapping[str, object], key: str, decode: Callable[[object], _T]) -> _T:
    """Read a present key, locating any problem under it."""
    try:
        return decode(obj[key])
    except Invalid as invalid:
        invalid.segments.append(key)
        raise


def optional(
    obj: Mapping[str, object], key: str, decode: Callable[[object], _T], default: _D
) -> _T | _D:
    """Read a key that may be absent (then `default`)."""
    if key not in obj:
        return default
    return field(obj, key, decode)


def array(value: object, decode: Callable[[object], _T]) -> tuple[_T, ...]:
    """A JSON array whose every item `decode` accepts."""
    if not isinstance(value, list):
        raise _expected("array", value)
    items: Sequence[object] = value
    out: list[_T] = []
    for index, item in enumerate(items):
        try:
            out.append(decode(item))
        except Invalid as invalid:
            invalid.segments.append(index)
            raise
    return tuple(out)
