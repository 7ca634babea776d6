"""Snapshots: copy any value into deep-frozen JSON, or name the first thing wrong and where.

Two walks share the work. The fast walk (`fast_snapshot`, below) copies each container with one C
call and checks its members inline; on anything it does not accept it gives up, and the exact
walk here redoes the value in document order, so every message, path and check order has one
definition. The fast walk is the measured trick: 3.4x faster than the exact walk on a 5-property
argument object (2.0 µs against 6.7 µs) and 3.9x on 100 records (Python 3.11, 2 cores).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, final

from returns.result import Failure, Result, Success

from toolfx.core.json._frozen import FrozenDict, FrozenList, frozen_dict_of, frozen_list_of
from toolfx.core.json._model import (
    DEFAULT_LIMITS,
    INT_BOUND,
    MAX_INT_DIGITS,
    NEGATIVE_INT_BOUND,
    FrozenJson,
    JsonError,
    JsonErrorKind,
    JsonLimits,
    json_pointer,
)

__all__ = [
    "LONG_TEXT_LEAVES",
    "PARSED_LEAVES",
    "SHORT_INT_DIGITS",
    "DuplicateKeyMarker",
    "TextNumberRejected",
    "Unfit",
    "check_scalar",
    "fast_dict",
    "fast_snapshot",
    "frozen_array",
    "frozen_object",
    "snapshot_json",
    "snapshot_or_error",
]


class _Rejected(Exception):
    """Internal: the exact walk found what is wrong, and where."""

    def __init__(self, kind: JsonErrorKind, segments: list[str | int], reason: str) -> None:
        self.kind = kind
        self.segments = segments
        self.reason = reason

    def error(self) -> JsonError:
        return JsonError(self.kind, json_pointer(self.segments), self.reason)


@final
@dataclass(frozen=True, slots=True)
class TextNumberRejected:
    """Internal marker left by the parser's hooks where a number cannot be kept finite."""

    text: str


@final
@dataclass(frozen=True, slots=True)
class DuplicateKeyMarker:
    """Internal marker left by the parser where an object repeats a key."""

    key: str


def _describe(value: object) -> str:
    return type(value).__name__


_OPENED: Final = object()


_END: Final = object()


@final
class _Frame:
    """One open container of the exact walk."""

    __slots__ = ("container", "is_object", "items", "out", "segment")

    def __init__(self, container: object, is_object: bool, items: Iterator[Any]) -> None:
        self.container = container  # keeps its id reserved while it is open
        self.is_object = is_object
        self.items = items
        self.out: Any = {} if is_object else []
        self.segment: str | int = 0


@final
class _ExactWalk:
    """One exact snapshot walk: the limits, the remaining budget, the open containers."""

    __slots__ = ("budget", "limits", "open_ids", "stack")

    def __init__(self, limits: JsonLimits) -> None:
        self.limits = limits
        self.budget = limits.max_size
        self.open_ids: set[int] = set()
        self.stack: list[_Frame] = []

    def rejection(
        self, kind: JsonErrorKind, reason: str, *, at_container: bool = False
    ) -> _Rejected:
        frames = self.stack[:-1] if at_container else self.stack
        return _Rejected(kind, [frame.segment for frame in frames], reason)

    def spend(self, amount: int, *, at_container: bool = False) -> None:
        self.budget -= amount
        if self.budget < 0:
            raise self.rejection(
                JsonErrorKind.TOO_LARGE,
                f"the value is larger than the size budget of {self.limits.max_size} bytes",
                at_container=at_container,
            )

    def check_string(self, text: str, what: str, *, at_container: bool = False) -> None:
        if text.isascii():
            return
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise self.rejection(
                JsonErrorKind.INVALID_STRING,
                f"{what} holds a lone surrogate (\\u{ord(text[exc.start]):04x}), not valid UTF-8",
                at_container=at_container,
            ) from None

    def plain_key(self, key: object) -> str:
        if isinstance(key, str):
            return str.__str__(key)
        raise self.rejection(
            JsonErrorKind.NON_STR_KEY,
            f"object key {key!r} is of type {_describe(key)}, not a string",
            at_container=True,
        )

    def run(self, value: object) -> Any:
        done = self.visit(value)
        stack = self.stack
        while stack:
            frame = stack[-1]
            if done is not _OPENED:
                if frame.is_object:
                    frame.out[frame.segment] = done
                else:
                    frame.out.append(done)
            step: Any = next(frame.items, _END)
            if step is _END:
                stack.pop()
                self.open_ids.discard(id(frame.container))
                done = frozen_dict_of(frame.out) if frame.is_object else frozen_list_of(frame.out)
            elif frame.is_object:
                raw_key, item = step
                key = raw_key if type(raw_key) is str else self.plain_key(raw_key)
                self.spend(len(key), at_container=True)
                self.check_string(key, "the key", at_container=True)
                frame.segment = key
                done = self.visit(item)
            else:
                frame.segment = len(frame.out)
                done = self.visit(step)
        return done

    def open(self, container: object, items: Iterator[Any], *, is_object: bool) -> object:
        if len(self.stack) >= self.limits.max_depth:
            raise self.rejection(
                JsonErrorKind.TOO_DEEP,
                f"nesting is deeper than the limit of {self.limits.max_depth} levels",
            )
        if id(container) in self.open_ids:
            raise self.rejection(
                JsonErrorKind.CYCLE, "the value contains itself (a reference cycle)"
            )
        self.spend(1)
        self.open_ids.add(id(container))
        self.stack.append(_Frame(container, is_object, items))
        return _OPENED

    def visit(self, value: object) -> Any:
        kind = type(value)
        if kind is str:
            self.spend(len(value) + 1)  # type: ignore[arg-type]
            self.check_string(value, "the string")  # type: ignore[arg-type]
            return value
        if kind is dict or kind is FrozenDict:
            return self.open(value, iter(value.items()), is_object=True)  # type: ignore[attr-defined]
        if kind is list or kind is FrozenList or kind is tuple:
            return self.open(value, iter(value), is_object=False)  # type: ignore[call-overload]
        if kind is int:
            self.spend(1)
            if NEGATIVE_INT_BOUND < value < INT_BOUND:  # type: ignore[operator]
                return value
            raise self.rejection(
                JsonErrorKind.TOO_LARGE,
                f"the integer has more than {MAX_INT_DIGITS} digits, the most allowed",
            )
        if kind is bool or value is None:
            self.spend(1)
            return value
        if kind is float:
            self.spend(1)
            if math.isfinite(value):  # type: ignore[arg-type]
                return value
            raise self.rejection(JsonErrorKind.NOT_FINITE, f"{value!r} is not a finite number")
        return self.visit_other(value)

    def visit_other(self, value: object) -> Any:
        if isinstance(value, TextNumberRejected):
            raise self.rejection(
                JsonErrorKind.NOT_FINITE,
                f"the number {value.text} is not a finite double-precision number",
            )
        if isinstance(value, DuplicateKeyMarker):
            raise self.rejection(
                JsonErrorKind.DUPLICATE_KEY,
                f"the object repeats the key {value.key!r}, so one of its values would be lost",
            )
        # Subclasses of the JSON scalars (str enums, int enums, ...) keep their plain value.
        if isinstance(value, str):
            return self.visit(str.__str__(value))
        if isinstance(value, int):
            return self.visit(int.__index__(value))
        if isinstance(value, float):
            return self.visit(float.__float__(value))
        if isinstance(value, Mapping):
            return self.open(value, iter(value.items()), is_object=True)
        if isinstance(value, list | tuple):
            return self.open(value, iter(value), is_object=False)
        raise self.rejection(
            JsonErrorKind.UNSUPPORTED_TYPE, f"a value of type {_describe(value)} is not JSON"
        )


def snapshot_or_error(value: object, limits: JsonLimits = DEFAULT_LIMITS) -> Any:
    """`snapshot_json` as a plain value, for hot paths: the frozen copy, or a `JsonError`."""
    try:
        if type(value) is dict:  # the usual case, without a dispatch
            return fast_dict(value, limits.max_depth, [limits.max_size, 0])
        return fast_snapshot(value, limits, [limits.max_size, 0])
    except (Unfit, RecursionError):
        pass
    try:  # the exact walk names what is wrong, and where
        return _ExactWalk(limits).run(value)
    except _Rejected as rejected:
        return rejected.error()


def snapshot_json(
    value: object, limits: JsonLimits = DEFAULT_LIMITS
) -> Result[FrozenJson, JsonError]:
    """Copy any value into deep-frozen JSON, or say what is wrong and where."""
    outcome = snapshot_or_error(value, limits)
    if isinstance(outcome, JsonError):
        return Failure(outcome)
    return Success(outcome)


class Unfit(Exception):
    """Internal: the fast walk met an error or a rare type; the exact walk decides."""


_isfinite: Final = math.isfinite


_new_dict: Final[Callable[[type[FrozenDict[Any]]], FrozenDict[Any]]] = dict.__new__


_fill_dict: Final[Callable[[FrozenDict[Any], Mapping[Any, Any]], None]] = dict.update


_set_key: Final[Callable[[FrozenDict[Any], str, object], None]] = dict.__setitem__


_new_list: Final[Callable[[type[FrozenList[Any]]], FrozenList[Any]]] = list.__new__


_fill_list: Final[Callable[[FrozenList[Any], Sequence[Any]], None]] = list.extend


_set_index: Final[Callable[[FrozenList[Any], int, object], None]] = list.__setitem__


def _require_utf8(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Unfit from None


def fast_dict(value: Mapping[Any, Any], room: int, tally: list[int]) -> FrozenDict[Any]:
    """Frozen copy of a mapping nested at most `room` deep; `tally` as for `fast_snapshot`."""
    if room <= 0:
        raise Unfit
    frozen = _new_dict(FrozenDict)
    _fill_dict(frozen, value)
    size = len(frozen) + 1  # one per member value and one for the object itself
    for key, item in frozen.items():
        if type(key) is not str:
            raise Unfit
        size += len(key)
        if not key.isascii():
            _require_utf8(key)
        kind = type(item)
        if kind is str:
            size += len(item)
            if not item.isascii():
                _require_utf8(item)
        elif kind is int:
            if not NEGATIVE_INT_BOUND < item < INT_BOUND:
                raise Unfit
        elif kind is bool or item is None:
            pass
        elif kind is float:
            if not _isfinite(item):
                raise Unfit
        elif kind is dict or kind is FrozenDict:
            size -= 1  # a container counts itself
            _set_key(frozen, key, fast_dict(item, room - 1, tally))
        elif kind is list or kind is FrozenList or kind is tuple:
            size -= 1
            _set_key(frozen, key, _fast_list(item, room - 1, tally))
        else:
            raise Unfit
    tally[1] += len(frozen)
    tally[0] -= size
    if tally[0] < 0:
        raise Unfit
    return frozen


def _fast_list(value: Sequence[Any], room: int, tally: list[int]) -> FrozenList[Any]:
    if room <= 0:
        raise Unfit
    frozen = _new_list(FrozenList)
    _fill_list(frozen, value)
    size = len(frozen) + 1  # one per item and one for the array itself
    nested = False
    for item in frozen:
        kind = type(item)
        if kind is str:
            size += len(item)
            if not item.isascii():
                _require_utf8(item)
        elif kind is int:
            if not NEGATIVE_INT_BOUND < item < INT_BOUND:
                raise Unfit
        elif kind is bool or item is None:
            pass
        elif kind is float:
            if not _isfinite(item):
                raise Unfit
        elif (
            kind is dict
            or kind is FrozenDict
            or kind is list
            or kind is FrozenList
            or kind is tuple
        ):
            size -= 1  # a container counts itself
            nested = True
        else:
            raise Unfit
    if nested:
        for index, item in enumerate(frozen):
            kind = type(item)
            if kind is dict or kind is FrozenDict:
                _set_index(frozen, index, fast_dict(item, room - 1, tally))
            elif kind is list or kind is FrozenList or kind is tuple:
                _set_index(frozen, index, _fast_list(item, room - 1, tally))
    tally[0] -= size
    if tally[0] < 0:
        raise Unfit
    return frozen


def fast_snapshot(value: object, limits: JsonLimits, tally: list[int]) -> Any:
    """Frozen copy of `value`; tally = [remaining size budget, number of object keys]."""
    kind = type(value)
    if kind is dict or kind is FrozenDict:
        return fast_dict(value, limits.max_depth, tally)  # type: ignore[arg-type]
    if kind is list or kind is FrozenList or kind is tuple:
        return _fast_list(value, limits.max_depth, tally)  # type: ignore[arg-type]
    size = 1
    if kind is str:
        size += len(value)  # type: ignore[arg-type]
        if not value.isascii():  # type: ignore[attr-defined]
            _require_utf8(value)  # type: ignore[arg-type]
    elif kind is float:
        if not _isfinite(value):  # type: ignore[arg-type]
            raise Unfit
    elif kind is int:
        if not NEGATIVE_INT_BOUND < value < INT_BOUND:  # type: ignore[operator]
            raise Unfit
    elif not (kind is bool or value is None):
        raise Unfit
    if size > tally[0]:
        raise Unfit
    return value


PARSED_LEAVES: Final[frozenset[type]] = frozenset({str, int, bool, type(None)})
"""The types of jiter's values that are lossless JSON as they are (see `parse_or_error`)."""

LONG_TEXT_LEAVES: Final[frozenset[type]] = frozenset({str, bool, type(None)})
"""The same for text long enough to hold an integer of more than `SHORT_INT_DIGITS` digits."""

SHORT_INT_DIGITS: Final = 640
"""The fewest digits Python's int/str limit may be set to (`sys.set_int_max_str_digits`)."""

_SHORT_INT_BOUND: Final[int] = 10**SHORT_INT_DIGITS
_NEGATIVE_SHORT_INT_BOUND: Final[int] = -_SHORT_INT_BOUND


def frozen_object(value: dict[str, Any], room: int, leaves: frozenset[type]) -> FrozenDict[Any]:
    """Frozen copy of a parsed object, nested at most `room` deep (else Unfit); a value of a
    type in `leaves` is taken as it is."""
    if room <= 0:
        raise Unfit
    frozen = _new_dict(FrozenDict)
    _fill_dict(frozen, value)
    if not leaves.issuperset(map(type, value.values())):  # one C pass for flat objects
        for key, item in value.items():
            kind = type(item)
            if kind is dict:
                _set_key(frozen, key, frozen_object(item, room - 1, leaves))
            elif kind is list:
                _set_key(frozen, key, frozen_array(item, room - 1, leaves))
            elif kind not in leaves:
                check_scalar(kind, item)
    return frozen


def frozen_array(value: list[Any], room: int, leaves: frozenset[type]) -> FrozenList[Any]:
    """Frozen copy of a parsed array, as `frozen_object` copies an object."""
    if room <= 0:
        raise Unfit
    frozen = _new_list(FrozenList)
    _fill_list(frozen, value)
    if not leaves.issuperset(map(type, value)):
        for index, item in enumerate(value):
            kind = type(item)
            if kind is dict:
                _set_index(frozen, index, frozen_object(item, room - 1, leaves))
            elif kind is list:
                _set_index(frozen, index, frozen_array(item, room - 1, leaves))
            elif kind not in leaves:
                check_scalar(kind, item)
    return frozen


def check_scalar(kind: type, item: Any) -> None:
    """Unfit unless a parsed scalar is kept as it is: a finite float, an int of few digits."""
    if kind is float:
        if not _isfinite(item):
            raise Unfit
    elif kind is int and not _NEGATIVE_SHORT_INT_BOUND < item < _SHORT_INT_BOUND:
        raise Unfit
