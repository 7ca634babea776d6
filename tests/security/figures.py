"""The security suite's figures: attempts, escapes, bypasses, work per input class, survivors.

Tests record what they tried and what got through; `make security` prints the tables at the
end of the run (`TOOLFX_SECURITY_REPORT=1`). The attempt count per race comes from
`TOOLFX_SECURITY_ATTEMPTS` (50 under `make test`, 1,000 under `make security`).
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar, final

T = TypeVar("T")

ATTEMPTS: Final = int(os.environ.get("TOOLFX_SECURITY_ATTEMPTS", "50"))
"""How many times each race is tried."""


@final
@dataclass(frozen=True, slots=True)
class Work:
    """The CPU seconds and the growth of the peak resident memory of one piece of work."""

    cpu_seconds: float
    peak_bytes: int


def measured(function: Callable[[], T]) -> tuple[T, Work]:
    """Run `function` here, with its CPU time (this process) and its peak memory growth."""
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu_before = time.process_time()
    value = function()
    cpu = time.process_time() - cpu_before
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return value, Work(cpu, max(rss_after - rss_before, 0) * 1024)


@final
@dataclass(slots=True)
class Figures:
    """What the suite tried and what got through, by table."""

    races: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    bypasses: dict[str, list[int]] = field(default_factory=dict)
    work: dict[str, Work] = field(default_factory=dict)
    survivors: dict[str, list[int]] = field(default_factory=dict)
    terminal: dict[str, list[int]] = field(default_factory=dict)

    def race(self, leaf: str, kind: str, attempts: int, escaped_bytes: int) -> None:
        """Record `attempts` races of `kind` against `leaf` and the bytes that crossed."""
        row = self.races.setdefault((leaf, kind), [0, 0])
        row[0] += attempts
        row[1] += escaped_bytes

    def bypass(self, family: str, tried: int, ran: int) -> None:
        """Record `tried` commands of a bypass family and how many ran their payload."""
        row = self.bypasses.setdefault(family, [0, 0])
        row[0] += tried
        row[1] += ran

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
        row = self.survivors.setdefault(ending, [0, 0])
        row[0] += calls
        row[1] += alive_after

    def escapes(self, surface: str, renders: int, raw_bytes: int) -> None:
        """Record `renders` hostile renders on a surface and the raw escape bytes that got out."""
        row = self.terminal.setdefault(surface, [0, 0])
        row[0] += renders
        row[1] += raw_bytes

    def lines(self) -> list[str]:
        """The tables as text."""
        out: list[str] = []
        if self.races:
            out += ["races (leaf, kind): attempts, bytes crossed without approval"]
            out += [
                f"  {leaf:<8} {kind:<28} {n:>7,} {b:>5}"
                for (leaf, kind), (n, b) in sorted(self.races.items())
            ]
        if self.bypasses:
            out += ["bypass families: commands tried, payload runs"]
            out += [f"  {name:<40} {n:>5} {r:>5}" for name, (n, r) in sorted(self.bypasses.items())]
        if self.work:
            out += ["pathological inputs: worst CPU s, worst peak memory growth MB"]
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


FIGURES: Final = Figures()
"""The figures of this test run."""
