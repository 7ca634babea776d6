"""The spill-store capability: where the whole text of a cut output is kept for the model.

A result whose text is over its limits shows the model a cut, and the whole text goes to the
runtime's spill store, which says where it is (a file the model can read, or a name in memory).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, final

__all__ = ["SpillError", "SpillLocation", "SpillStore", "SpillWriter"]


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

    async def write(self, data: bytes) -> None:
        """Append `data`; `SpillError` if it cannot (the spill is then removed, and closed)."""
        ...

    async def close(self) -> None:
        """Finish the spill: what was written stays at `location` (a second close does nothing)."""
        ...


class SpillStore(Protocol):
    """Keeps whole outputs that were cut for the model; each under a new, unique name."""

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        """Keep `text` whole (of `tool`'s call `call_id`); where it is, or `SpillError`."""
        ...

    async def open(self, call_id: str, tool: str) -> SpillWriter:
        """A new, empty spill for `tool`'s call `call_id`, written as the output comes; or
        `SpillError`. The caller closes it."""
        ...
