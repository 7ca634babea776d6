"""Frozen JSON recognized and thawed: is a value already frozen JSON, and its plain mutable copy.

The frozen form uses `FrozenList` and `FrozenDict` (see `_frozen.py`); the limits are in
`_model.py`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from toolfx.core.json._frozen import FrozenDict, FrozenList
from toolfx.core.json._model import (
    INT_BOUND,
    NEGATIVE_INT_BOUND,
    FrozenJson,
    JsonValue,
)

__all__ = ["is_frozen_json", "thaw_json"]


def is_frozen_json(value: object) -> bool:
    """Whether `value` is already a frozen JSON value (a scalar, FrozenList or FrozenDict)."""
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList or kind is bool:
        return True
    if kind is str:
        return value.isascii() or _is_utf8(value)  # type: ignore[attr-defined,arg-type]
    if kind is int:
        return NEGATIVE_INT_BOUND < value < INT_BOUND  # type: ignore[operator]
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    return value is None


def _is_utf8(text: str) -> bool:
    """Whether text can be written as UTF-8 (no lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def thaw_json(value: FrozenJson) -> JsonValue:
    """Give back plain, mutable dicts and lists for a frozen JSON value."""
    kind = type(value)
    if kind is FrozenDict or kind is dict:
        return _thaw_dict(value)  # type: ignore[arg-type]
    if kind is FrozenList or kind is list:
        return _thaw_list(value)  # type: ignore[arg-type]
    if isinstance(value, Mapping):
        return {key: thaw_json(item) for key, item in value.items()}
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):
        return [thaw_json(item) for item in value]
    return value


def _thaw_dict(value: dict[str, FrozenJson]) -> dict[str, JsonValue]:
    out: dict[str, Any] = dict(value)
    for key, item in out.items():
        kind = type(item)
        if kind is str or kind is int or kind is bool or kind is float or item is None:
            continue
        out[key] = thaw_json(item)
    return out


def _thaw_list(value: list[FrozenJson]) -> list[JsonValue]:
    out: list[Any] = list(value)
    for index, item in enumerate(out):
        kind = type(item)
        if kind is str or kind is int or kind is bool or kind is float or item is None:
            continue
        out[index] = thaw_json(item)
    return out
