"""A small timing harness shared by every bench module: the best of several timeit runs, in µs.

A bench module is a `bench_<topic>.py` file in this package with a `run() -> list[Case]`
function; `python -m tests.bench` finds and runs them all in one process and prints every case
in µs per call and as a multiple of the reference (json.loads of a 5-property tool-call text,
the yardstick of docs/architecture.md's measured facts). A case whose value is not a time per call
names its unit at the end of its name, e.g. "register 10,000 tools (s)" (see `unit_of`).
"""

from __future__ import annotations

import json
import timeit
from collections.abc import Callable
from typing import Final

__all__ = [
    "MICROSECONDS",
    "REFERENCE_ARGUMENTS",
    "REFERENCE_NAME",
    "REFERENCE_TEXT",
    "REPEATS",
    "UNITS",
    "Case",
    "reference_time",
    "time_call",
    "unit_of",
]

Case = tuple[str, float]
"""One measurement: the case's name and its cost in microseconds per call (or in its unit)."""

MICROSECONDS: Final = "µs"
"""The unit of a case whose name names no other: microseconds per call."""

UNITS: Final = ("s", "ms", "B", "KiB", "MiB", "x")
"""The other units a case may name as the last word of its name, in parentheses: "... (KiB)".

"x" is a ratio of two cases measured in the same run (a target's check).
"""

REPEATS: Final = 5
"""How many timed runs each case gets; the minimum is reported (the least disturbed run)."""

REFERENCE_ARGUMENTS: Final = {
    "path": "src/a.py",
    "offset": 10,
    "limit": 200,
    "follow": True,
    "mode": "text",
}
"""A typical tool call's arguments: five properties of the common JSON types."""

REFERENCE_TEXT: Final = json.dumps(REFERENCE_ARGUMENTS)
"""The same arguments as the model sends them: JSON text."""

REFERENCE_NAME: Final = "json.loads(5-property text)"
"""The name of the reference case that every ratio is relative to."""


def time_call(call: Callable[[], object], repeats: int = REPEATS) -> float:
    """Microseconds per call of `call`: timeit's autorange loop count, `repeats` runs, the min."""
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return min(timer.repeat(repeats, number)) / number * 1e6


def reference_time() -> Case:
    """The reference case, measured now: json.loads of the 5-property text."""
    return (REFERENCE_NAME, time_call(lambda: json.loads(REFERENCE_TEXT)))


def unit_of(case: str) -> str:
    """The unit of a case's value: the `UNITS` entry closing its name as "(unit)", else µs."""
    for unit in UNITS:
        if case.endswith(f" ({unit})"):
            return unit
    return MICROSECONDS
