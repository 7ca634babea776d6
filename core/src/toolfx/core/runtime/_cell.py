"""A lock-free atomic cell: compare-and-swap built on `dict.setdefault`, safe across threads.

Every version of the value is a node whose successor is claimed at most once, by an atomic
`setdefault`; readers follow successors to the newest node. So concurrent updates never lose
one another, and the core needs no threading primitives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Generic, TypeVar, final

__all__ = ["AtomicCell"]

T = TypeVar("T")
R = TypeVar("R")

_NEXT: Final = 0


@final
class _Version(Generic[T]):
    """One version of the cell's value and the claim on its successor."""

    __slots__ = ("successor", "value")

    def __init__(self, value: T) -> None:
        self.value = value
        self.successor: dict[int, _Version[T]] = {}


@final
class AtomicCell(Generic[T]):
    """Holds one value; `update` applies a pure change atomically, retrying on contention."""

    __slots__ = ("_hint",)

    def __init__(self, value: T) -> None:
        self._hint = _Version(value)

    def _newest(self) -> _Version[T]:
        version = self._hint
        while (successor := version.successor.get(_NEXT)) is not None:
            version = successor
        return version

    def get(self) -> T:
        """The newest value."""
        return self._newest().value

    def update(self, change: Callable[[T], tuple[T, R]]) -> tuple[T, T, R]:
        """Apply `change` to the newest value atomically; give (old, new, change's result).

        `change` must be pure: under contention it runs again on the newer value. When it
        returns the same value object, nothing is written.
        """
        version = self._newest()
        while True:
            new_value, result = change(version.value)
            if new_value is version.value:
                return version.value, new_value, result
            candidate = _Version(new_value)
            winner = version.successor.setdefault(_NEXT, candidate)
            if winner is candidate:
                self._hint = candidate  # a hint only: readers follow successors anyway
                return version.value, new_value, result
            version = winner
            while (successor := version.successor.get(_NEXT)) is not None:
                version = successor
