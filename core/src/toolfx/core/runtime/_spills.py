"""The spill-store capability: where the whole text of a cut output is kept for the model.

A result whose text is over its limits shows the model a cut, and the whole text goes to the
runtime's spill store, which says where it is (a file the model can read, or a name in memory).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol, final

from toolfx.core.json import plural

__all__ = [
    "SPILL_BUDGET",
    "SpillBudget",
    "SpillError",
    "SpillLocation",
    "SpillStore",
    "SpillWriter",
]

SPILL_BUDGET: Final = 512 << 20
"""The most bytes a spill store saves by default across all its spills (a session's or a
process's): past it later output is counted, not saved."""


@final
@dataclass(frozen=True, slots=True)
class SpillLocation:
    """Where a spilled text is kept: the path the model is told to read it from."""

    path: str


class SpillError(Exception):
    """A spill store could not keep a text (disk full, no permission, ...), saying why."""

    __module__ = "toolfx.core"  # its public home, shown in tracebacks

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SpillWriter(Protocol):
    """One spill written as its output comes: bytes appended in order, then closed."""

    @property
    def location(self) -> SpillLocation:
        """Where the bytes written are kept."""
        ...

    async def write(self, data: bytes) -> int:
        """Append what of `data` the store's budget still allows; how many bytes that was (fewer
        than given: the budget is spent, the rest is not saved). `SpillError` if it cannot (the
        spill is then removed, and closed)."""
        ...

    async def close(self) -> None:
        """Finish the spill: what was written stays at `location` (a second close does nothing)."""
        ...


class SpillStore(Protocol):
    """Keeps whole outputs that were cut for the model; each under a new, unique name, all of
    them within the store's budget of bytes."""

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        """Keep `text` whole (of `tool`'s call `call_id`); where it is, or `SpillError` (also
        when it is over what is left of the budget)."""
        ...

    async def open(self, call_id: str, tool: str) -> SpillWriter:
        """A new, empty spill for `tool`'s call `call_id`, written as the output comes; or
        `SpillError` (also when the budget is spent). The caller closes it."""
        ...


@final
class SpillBudget:
    """The bytes a spill store may still save across all its spills, handed out in order.

    Not locked: a store whose spills are written from several threads takes it under its lock.
    """

    __slots__ = ("_left", "total")

    def __init__(self, total: int = SPILL_BUDGET) -> None:
        if total < 0:
            raise ValueError(f"a spill budget is a number of bytes, not {total}")
        self.total: Final = total
        """The bytes the store may save in all."""
        self._left = total

    @property
    def left(self) -> int:
        """The bytes not yet handed out."""
        return self._left

    def grant(self, size: int) -> int:
        """Hand out up to `size` bytes of what is left; how many."""
        granted = min(max(size, 0), self._left)
        self._left -= granted
        return granted

    def refusal(self, size: int) -> SpillError | None:
        """Why a spill of `size` more bytes cannot be made or kept whole, or None (then the
        bytes are granted)."""
        if size <= self._left and (size > 0 or self._left > 0):
            self._left -= size
            return None
        return SpillError(
            f"the {plural(self.total, 'byte')} of output this session may save are used up "
            f"({self._left} left)"
        )
