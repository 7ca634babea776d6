"""A spill store in memory: each whole output kept under a new name, readable by tests."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, final

from toolfx.core.runtime import SpillLocation, SpillStore

__all__ = ["MEMORY_SPILLS", "MemorySpills"]

MEMORY_SPILLS: Final = "memory://spills/"
"""The prefix of every path a `MemorySpills` gives."""


@final
class MemorySpills(SpillStore):
    """Keeps each spilled text in a dict, under `memory://spills/<call id>.txt` (then -2, -3...)."""

    __slots__ = ("_texts",)

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    @property
    def texts(self) -> Mapping[str, str]:
        """Every text kept so far, by the path given for it (a read-only view)."""
        return MappingProxyType(self._texts)

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        """Keep `text` under a new path; never fails."""
        path = f"{MEMORY_SPILLS}{call_id}.txt"
        copy = 1
        while path in self._texts:
            copy += 1
            path = f"{MEMORY_SPILLS}{call_id}-{copy}.txt"
        self._texts[path] = text
        return SpillLocation(path)
