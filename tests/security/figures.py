"""The security suite's figures: attempts, escapes, bypasses, work per input class, survivors.

Tests record what they tried and what got through; `make security` prints the tables at the
end of the run (`TOOLFX_SECURITY_REPORT=1`). The attempt count per race comes from
`TOOLFX_SECURITY_ATTEMPTS` (50 under `make test`, 1,000 under `make security`).
"""

from __future__ import annotations

import os
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar, final

K = TypeVar("K")
T = TypeVar("T")

MEMORY_BUDGET: Final = 100 * 2**20
"""Bytes of (traced) memory one pathological input may hold at its peak."""

ATTEMPTS: Final = int(os.environ.get("TOOLFX_SECURITY_ATTEMPTS", "50"))
"""How many times each race is tried."""


@final
@dataclass(frozen=True, slots=True)
class Work:
    """The CPU seconds and the peak memory of one piece of work."""

    cpu_seconds: float
    peak_bytes: int


@final
@dataclass(slots=True)
class Figures:
    """What the suite tried and what got through, by table."""

    races: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    bypasses: dict[str, list[int]] = field(default_factory=dict)
    work: dict[str, Work] = field(default_factory=dict)
    survivors: dict[str, list[int]] = field(default_factory=dict)
    terminal: dict[str, list[int]] = field(default_factory=dict)

    def race(self, leaf: str, kind: str, attempts: int, escaped_bytes: int, met: int = 0) -> None:
        """Record `attempts` races of `kind` against `leaf`, the bytes that crossed, and how
        many calls met the swapped state (refused as outside, changed or asked)."""
        _add(self.races, (leaf, kind), attempts, escaped_bytes, met)

    def bypass(self, family: str, tried: int, ran: int) -> None:
        """Record `tried` commands of a bypass family and how many ran their payload."""
        _add(self.bypasses, family, tried, ran)

    def cost(self, input_class: str, work: Work) -> None:
        """Keep the worst CPU and memory seen for an input class."""
        worst = self.work.get(input_class)
        if worst is None:
            self.work[input_class] = work
        else:
            self.work[input_class] = Work(
                max(worst.cpu_seconds, work.cpu_seconds), max(worst.peak_bytes, work.peak_bytes)
            )

    def processes(self, ending: str, calls: int, alive_after: int) -> None:
        """Record `calls` commands ended by `ending` and the processes alive after them."""
        _add(self.survivors, ending, calls, alive_after)

    def escapes(self, surface: str, renders: int, raw_bytes: int) -> None:
        """Record `renders` hostile renders on a surface and the raw escape bytes that got out."""
        _add(self.terminal, surface, renders, raw_bytes)

    def lines(self) -> list[str]:
        """The tables as text."""
        out: list[str] = []
        if self.races:
            out += ["races (leaf, kind): attempts, bytes crossed unasked, calls that met a swap"]
            out += [
                f"  {leaf:<8} {kind:<32} {n:>7,} {b:>5} {m:>7,}"
                for (leaf, kind), (n, b, m) in sorted(self.races.items())
            ]
        if self.bypasses:
            out += [
                "bypass families: commands tried, got through (payload ran, or allowed unasked)"
            ]
            out += [f"  {name:<40} {n:>5} {r:>5}" for name, (n, r) in sorted(self.bypasses.items())]
        if self.work:
            out += [
                "pathological inputs (budget 1 s CPU, 100 MB): worst CPU s, worst peak traced MB"
            ]
            out += [
                f"  {name:<40} {w.cpu_seconds:>7.3f} {w.peak_bytes / 2**20:>8.1f}"
                for name, w in sorted(self.work.items())
            ]
        if self.survivors:
            out += ["process lifetime (ending): calls, processes alive after the call"]
            out += [
                f"  {name:<40} {n:>5} {a:>5}" for name, (n, a) in sorted(self.survivors.items())
            ]
        if self.terminal:
            out += ["terminal (surface): hostile renders, raw escape bytes out"]
            out += [f"  {name:<40} {n:>5} {r:>5}" for name, (n, r) in sorted(self.terminal.items())]
        return out


def within_budget(input_class: str, function: Callable[[], T]) -> T:
    """Run `function` twice (CPU untraced, then peak memory under tracemalloc), keep the
    class's worst figures for `make security` to print, and fail past `MEMORY_BUDGET`.

    CPU time is a figure, never asserted: the tests bound the work itself (slices, entries,
    bytes), so a loaded machine cannot fail them."""
    started = time.process_time()
    result = function()
    cpu = time.process_time() - started
    tracemalloc.start()
    try:
        function()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    FIGURES.cost(input_class, Work(cpu, peak))
    assert peak < MEMORY_BUDGET, f"{input_class} held {peak / 2**20:.1f} MB"
    return result


def _add(table: dict[K, list[int]], key: K, *counts: int) -> None:
    row = table.setdefault(key, [0] * len(counts))
    for index, count in enumerate(counts):
        row[index] += count


FIGURES: Final = Figures()
"""The figures of this test run."""
