"""A spill store in memory: each whole output kept under a new name, readable by tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, final

from toolfx.core.runtime import (
    SPILL_BUDGET,
    SpillBudget,
    SpillError,
    SpillLocation,
    SpillStore,
    SpillWriter,
)

__all__ = ["MEMORY_SPILLS", "MemorySpills"]

MEMORY_SPILLS: Final = "memory://spills/"
"""The prefix of every path a `MemorySpills` gives."""


@final
class MemorySpills(SpillStore):
    """Keeps each spill in a dict, under `memory://spills/<call id>.txt` (then -2, -3...); all of
    them together at most `budget` bytes."""

    __slots__ = ("_budget", "_streams", "_texts")

    def __init__(self, budget: int = SPILL_BUDGET) -> None:
        self._texts: dict[str, str] = {}
        self._streams: dict[str, bytearray] = {}
        self._budget = SpillBudget(budget)

    @property
    def texts(self) -> Mapping[str, str]:
        """Every spill so far as text (streamed bytes that are not UTF-8 replaced), by its path
        (a copy)."""
        streamed = {path: data.decode("utf-8", "replace") for path, data in self._streams.items()}
        return {**self._texts, **streamed}

    @property
    def saved(self) -> Mapping[str, bytes]:
        """The bytes of every spill so far (texts as UTF-8), by its path (a copy)."""
        texts = {path: text.encode("utf-8", "surrogatepass") for path, text in self._texts.items()}
        return {**texts, **{path: bytes(data) for path, data in self._streams.items()}}

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        """Keep `text` under a new path; `SpillError` if it is over what is left of the budget."""
        refusal = self._budget.refusal(len(text.encode("utf-8", "surrogatepass")))
        if refusal is not None:
            raise refusal
        path = self._new(call_id)
        self._texts[path] = text
        return SpillLocation(path)

    async def open(self, call_id: str, tool: str) -> SpillWriter:
        """A new, empty spill under a new path, written as it comes; `SpillError` if the budget
        is spent."""
        refusal = self._budget.refusal(0)
        if refusal is not None:
            raise refusal
        path = self._new(call_id)
        self._streams[path] = data = bytearray()
        return _MemoryWriter(path, data, self._budget)

    def _new(self, call_id: str) -> str:
        path = f"{MEMORY_SPILLS}{call_id}.txt"
        copy = 1
        while path in self._texts or path in self._streams:
            copy += 1
            path = f"{MEMORY_SPILLS}{call_id}-{copy}.txt"
        return path


@final
class _MemoryWriter(SpillWriter):
    """Appends to one spill of a `MemorySpills` until closed."""

    __slots__ = ("_budget", "_closed", "_data", "_path")

    def __init__(self, path: str, data: bytearray, budget: SpillBudget) -> None:
        self._path, self._data, self._closed = path, data, False
        self._budget = budget

    @property
    def location(self) -> SpillLocation:
        """The spill's path."""
        return SpillLocation(self._path)

    async def write(self, data: bytes) -> int:
        """Append what of `data` the budget grants; how many bytes. `SpillError` once closed."""
        if self._closed:
            raise SpillError(f"the spill {self._path} is closed")
        granted = self._budget.grant(len(data))
        self._data += data[:granted]
        return granted

    async def close(self) -> None:
        """No more writes."""
        self._closed = True
