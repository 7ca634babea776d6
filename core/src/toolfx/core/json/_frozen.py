"""Frozen JSON containers: the builtin list and dict with every mutating method refused.

A frozen value is still a list or a dict, so json.dumps, jsonschema-rs and user code take it as
it is, while nothing can change it. They are built only by toolfx (`snapshot_json`,
`parse_json`, decoders), which is why their constructors refuse to run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, TypeVar, final

__all__ = ["FrozenDict", "FrozenList", "frozen_dict_of", "frozen_list_of"]

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
        return (frozen_list_of, (list(self),))

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
        return (frozen_dict_of, (dict(self),))

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


def frozen_list_of(items: list[Any]) -> FrozenList[Any]:
    """Freeze a list of already frozen items (for toolfx's own builders, no checks)."""
    frozen: FrozenList[Any] = list.__new__(FrozenList)
    list.extend(frozen, items)
    return frozen


def frozen_dict_of(items: dict[str, Any]) -> FrozenDict[Any]:
    """Freeze a dict of already frozen items (for toolfx's own builders, no checks)."""
    frozen: FrozenDict[Any] = dict.__new__(FrozenDict)
    dict.update(frozen, items)
    return frozen
