"""Lossless JSON: turn text or values into deep-frozen JSON, or a typed error with its path.

The frozen form of a JSON value uses `FrozenList` and `FrozenDict`: the builtin list and dict with
every mutating method refused, so a frozen value is still a valid `JsonValue` for json.dumps,
jsonschema-rs and user code, while nothing can change it after the snapshot.

Limits (`JsonLimits`, documented defaults): nesting at most 128 containers deep, and a size budget
of 32 MiB (the text's length for `parse_json`; for `snapshot_json`, the total length of strings and
keys plus one per value). Integers keep every digit; text integers longer than Python's
int-conversion limit (4,300 digits by default) are rejected as too large.
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NoReturn, TypeAlias, TypeVar, final

from returns.result import Failure, Result, Success

__all__ = [
    "DEFAULT_LIMITS",
    "FrozenDict",
    "FrozenJson",
    "FrozenList",
    "JsonError",
    "JsonErrorKind",
    "JsonLimits",
    "JsonValue",
    "is_frozen_json",
    "json_pointer",
    "parse_json",
    "snapshot_json",
    "thaw_json",
]

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
"""Any JSON value as plain Python data: what users write and json.loads returns."""

FrozenJson: TypeAlias = (
    "str | int | float | bool | Sequence[FrozenJson] | Mapping[str, FrozenJson] | None"
)
"""A read-only view of JSON; values from `snapshot_json` and `parse_json` are deep-frozen."""

_V = TypeVar("_V")
_T = TypeVar("_T")


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"{type(self).__name__} is immutable")


def _not_constructible(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"{type(self).__name__} values come from snapshot_json or parse_json")


@final
class FrozenList(list[_T]):
    """A JSON array that cannot change: a list whose mutating methods raise TypeError."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]  # list disables hashing; frozen enables it
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Callable[[list[Any]], FrozenList[Any]], tuple[list[Any]]]:
        return (_frozen_list, (list(self),))

    def __copy__(self) -> FrozenList[_T]:
        return self

    def __deepcopy__(self, memo: object) -> FrozenList[_T]:
        return self


@final
class FrozenDict(dict[str, _V]):
    """A JSON object that cannot change: a dict whose mutating methods raise TypeError."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]  # dict disables hashing; frozen enables it
        return hash(frozenset(self.items()))

    def __reduce__(
        self,
    ) -> tuple[Callable[[dict[str, Any]], FrozenDict[Any]], tuple[dict[str, Any]]]:
        return (_frozen_dict, (dict(self),))

    def __copy__(self) -> FrozenDict[_V]:
        return self

    def __deepcopy__(self, memo: object) -> FrozenDict[_V]:
        return self


for _cls, _mutators in (
    (
        FrozenList,
        (
            "append",
            "extend",
            "insert",
            "remove",
            "pop",
            "clear",
            "sort",
            "reverse",
            "__setitem__",
            "__delitem__",
            "__iadd__",
            "__imul__",
        ),
    ),
    (
        FrozenDict,
        (
            "__setitem__",
            "__delitem__",
            "clear",
            "pop",
            "popitem",
            "setdefault",
            "update",
            "__ior__",
        ),
    ),
):
    for _name in _mutators:
        setattr(_cls, _name, _refuse)
    setattr(_cls, "__init__", _not_constructible)  # noqa: B010  # hidden from mypy on purpose


def _frozen_list(items: list[Any]) -> FrozenList[Any]:
    frozen: FrozenList[Any] = list.__new__(FrozenList)
    list.extend(frozen, items)
    return frozen


def _frozen_dict(items: dict[str, Any]) -> FrozenDict[Any]:
    frozen: FrozenDict[Any] = dict.__new__(FrozenDict)
    dict.update(frozen, items)
    return frozen


@final
@dataclass(frozen=True, slots=True)
class JsonLimits:
    """Bounds on incoming JSON: nesting depth and a size budget (see the module docstring)."""

    max_depth: int = 128
    max_size: int = 32 * 1024 * 1024


DEFAULT_LIMITS: Final = JsonLimits()
"""The documented default limits."""


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


class _Rejected(Exception):
    """Internal: unwinds the walk, collecting the path on the way out."""

    def __init__(self, kind: JsonErrorKind, reason: str) -> None:
        self.kind = kind
        self.reason = reason
        self.segments: list[str | int] = []

    def error(self) -> JsonError:
        return JsonError(self.kind, json_pointer(self.segments[::-1]), self.reason)


@final
@dataclass(frozen=True, slots=True)
class _TextNumberRejected:
    """Internal marker left by the parser's hooks where a number cannot be kept finite."""

    text: str


@final
@dataclass(frozen=True, slots=True)
class _DuplicateKeyMarker:
    """Internal marker left by the parser where an object repeats a key."""

    key: str


def _describe(value: object) -> str:
    return type(value).__name__


def _plain_key(key: object) -> str:
    if isinstance(key, str):
        return str.__str__(key)
    raise _Rejected(
        JsonErrorKind.NON_STR_KEY,
        f"object key {key!r} is of type {_describe(key)}, not a string",
    )


def _check_string(text: str, what: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _Rejected(
            JsonErrorKind.INVALID_STRING,
            f"{what} holds a lone surrogate (\\u{ord(text[exc.start]):04x}), not valid UTF-8",
        ) from None


def _reject_too_deep(limits: JsonLimits) -> NoReturn:
    raise _Rejected(
        JsonErrorKind.TOO_DEEP,
        f"nesting is deeper than the limit of {limits.max_depth} levels",
    )


class _Walker:
    """One snapshot walk: the limits, the remaining size budget, the open containers."""

    __slots__ = ("budget", "limits", "open_ids")

    def __init__(self, limits: JsonLimits) -> None:
        self.limits = limits
        self.budget = limits.max_size
        self.open_ids: set[int] = set()

    def spend(self, amount: int) -> None:
        self.budget -= amount
        if self.budget < 0:
            raise _Rejected(
                JsonErrorKind.TOO_LARGE,
                f"the value is larger than the size budget of {self.limits.max_size} bytes",
            )

    def enter(self, container: object, depth: int) -> int:
        if depth >= self.limits.max_depth:
            _reject_too_deep(self.limits)
        ident = id(container)
        if ident in self.open_ids:
            raise _Rejected(JsonErrorKind.CYCLE, "the value contains itself (a reference cycle)")
        self.open_ids.add(ident)
        return ident

    def walk(self, value: object, depth: int) -> Any:
        kind = type(value)
        if kind is str:
            self.spend(len(value))  # type: ignore[arg-type]
            _check_string(value, "the string")  # type: ignore[arg-type]
            return value
        if kind is dict or kind is FrozenDict:
            return self.walk_object(value, depth)  # type: ignore[arg-type]
        if kind is list or kind is FrozenList or kind is tuple:
            return self.walk_array(value, depth)  # type: ignore[arg-type]
        if kind is int or kind is bool or value is None:
            self.spend(1)
            return value
        if kind is float:
            self.spend(1)
            if math.isfinite(value):  # type: ignore[arg-type]
                return value
            raise _Rejected(JsonErrorKind.NOT_FINITE, f"{value!r} is not a finite number")
        return self.walk_other(value, depth)

    def walk_object(self, value: Mapping[object, object], depth: int) -> FrozenDict[Any]:
        ident = self.enter(value, depth)
        out: dict[str, Any] = {}
        for raw_key, item in value.items():
            key = raw_key if type(raw_key) is str else _plain_key(raw_key)
            self.spend(len(key) + 1)
            try:
                _check_string(key, "the key")
                out[key] = self.walk(item, depth + 1)
            except _Rejected as rejected:
                rejected.segments.append(key)
                raise
        self.open_ids.discard(ident)
        return _frozen_dict(out)

    def walk_array(self, value: Sequence[object], depth: int) -> FrozenList[Any]:
        ident = self.enter(value, depth)
        self.spend(1)
        out: list[Any] = []
        append = out.append
        for index, item in enumerate(value):
            try:
                append(self.walk(item, depth + 1))
            except _Rejected as rejected:
                rejected.segments.append(index)
                raise
        self.open_ids.discard(ident)
        return _frozen_list(out)

    def walk_other(self, value: object, depth: int) -> Any:
        if isinstance(value, _TextNumberRejected):
            raise _Rejected(
                JsonErrorKind.NOT_FINITE,
                f"the number {value.text} is not a finite double-precision number",
            )
        if isinstance(value, _DuplicateKeyMarker):
            raise _Rejected(
                JsonErrorKind.DUPLICATE_KEY,
                f"the object repeats the key {value.key!r}, so one of its values would be lost",
            )
        # Subclasses of the JSON scalars (str enums, int enums, ...) keep their plain value.
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, str):
            return self.walk(str.__str__(value), depth)
        if isinstance(value, int):
            return self.walk(int.__index__(value), depth)
        if isinstance(value, float):
            return self.walk(float.__float__(value), depth)
        if isinstance(value, Mapping):
            return self.walk_object(value, depth)
        if isinstance(value, list | tuple):
            return self.walk_array(value, depth)
        raise _Rejected(
            JsonErrorKind.UNSUPPORTED_TYPE,
            f"a value of type {_describe(value)} is not JSON",
        )


def snapshot_json(
    value: object, limits: JsonLimits = DEFAULT_LIMITS
) -> Result[FrozenJson, JsonError]:
    """Copy any value into deep-frozen JSON, or say what is wrong and where."""
    try:
        return Success(_Walker(limits).walk(value, 0))
    except _Rejected as rejected:
        return Failure(rejected.error())


def is_frozen_json(value: object) -> bool:
    """Whether `value` is already a frozen JSON value (a scalar, FrozenList or FrozenDict)."""
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList or kind is str or kind is int or kind is bool:
        return True
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    return value is None


def _parse_constant(text: str) -> _TextNumberRejected:
    return _TextNumberRejected(text)


def _parse_float(text: str) -> float | _TextNumberRejected:
    number = float(text)
    return number if math.isfinite(number) else _TextNumberRejected(text)


def _object_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _DuplicateKeyMarker:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return _DuplicateKeyMarker(key)
        seen.add(key)
    raise AssertionError("unreachable: a shorter dict implies a repeated key")


_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=_object_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
)


def parse_json(
    text: str | bytes, limits: JsonLimits = DEFAULT_LIMITS
) -> Result[FrozenJson, JsonError]:
    """Parse JSON text into deep-frozen JSON, or say what is wrong and where."""
    if len(text) > limits.max_size:
        return Failure(
            JsonError(
                JsonErrorKind.TOO_LARGE,
                "",
                f"the text is {len(text)} long, over the size budget of {limits.max_size} bytes",
            )
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Failure(
                JsonError(
                    JsonErrorKind.INVALID_STRING,
                    "",
                    f"the text is not valid UTF-8 (byte {exc.start})",
                )
            )
    try:
        raw = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        return Failure(
            JsonError(
                JsonErrorKind.SYNTAX,
                "",
                f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            )
        )
    except RecursionError:
        return Failure(
            JsonError(
                JsonErrorKind.TOO_DEEP,
                "",
                f"nesting is deeper than the limit of {limits.max_depth} levels",
            )
        )
    except ValueError as exc:  # integer literals beyond Python's digit limit
        return Failure(JsonError(JsonErrorKind.TOO_LARGE, "", f"invalid JSON number: {exc}"))
    return snapshot_json(raw, limits)


def thaw_json(value: FrozenJson) -> JsonValue:
    """Give back plain, mutable dicts and lists for a frozen JSON value."""
    if isinstance(value, Mapping):
        return {key: thaw_json(item) for key, item in value.items()}
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):
        return [thaw_json(item) for item in value]
    return value
