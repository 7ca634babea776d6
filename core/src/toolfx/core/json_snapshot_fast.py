"""The fast snapshot walk: copy each container with one C call and check its members inline.

Plain recursive functions patch in the frozen copies of nested containers. The walk tallies the
size once per container and raises `Unfit` on anything it does not accept, including a nesting
deeper than the limit (which a cycle always reaches). It never reports an error itself: the exact
walk in `json_snapshot` redoes the work then, so messages, paths and the order of checks have one
definition.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from toolfx.core.frozen import FrozenDict, FrozenList
from toolfx.core.json_model import INT_BOUND, NEGATIVE_INT_BOUND, JsonLimits

__all__ = ["Unfit", "fast_dict", "fast_snapshot"]


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
