"""Benchmarks of the provider tool lists: `tools(catalog)` of each wire format at 10,000 tools.

Targets (issue 17), for every wire format, at 10,000 tools with distinct argument types: the
first list ever made (cold: the catalog's view compiled on first use, then every tool exported)
under 100 ms, and the list of an unchanged snapshot again (warm) under 1 ms. Cold is measured for
structurally equal schemas (distinct classes, one schema) and for schemas that really differ (a
property name each: every tool's parameters converted). The path a user takes after a change, a
new snapshot one registration apart, is measured beside them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from tests.bench.bench_registry import LARGE, ToolSpecs, definitions
from tests.bench.harness import Case, time_call
from toolfx.core.providers import anthropic_messages, gemini, openai_chat, openai_responses
from toolfx.core.registry import Catalog, Location

EXPORTS: Final[dict[str, Callable[[Catalog], Any]]] = {
    "openai_chat": openai_chat.tools,
    "openai_responses": openai_responses.tools,
    "anthropic_messages": anthropic_messages.tools,
    "gemini": gemini.tools,
}

COLD_RUNS: Final = 2
"""Fresh 10,000-tool locations for the cold rows (the best of these is reported)."""

CHANGES: Final = 5
"""Snapshots one registration apart for the after-a-change rows (the best is reported)."""


def listed(name: str, made: Any) -> Sequence[Any]:
    """The tools of one wire format's list (Gemini's is one tool of function declarations)."""
    return made["function_declarations"] if name == "gemini" else made  # type: ignore[no-any-return]


def _timed_ms(name: str, location: Location, expected: int) -> float:
    """ms for the wire format `name`'s tool list of the location's catalog now."""
    start = time.perf_counter()
    made = EXPORTS[name](location.catalog())
    elapsed = time.perf_counter() - start
    assert len(listed(name, made)) == expected
    return elapsed * 1e3


def fresh_locations(*, differ: bool) -> list[Location]:
    """`COLD_RUNS` locations of 10,000 tools each, never exported."""
    locations = [Location() for _ in range(COLD_RUNS)]
    for location in locations:
        ToolSpecs.make(LARGE, differ=differ).define_and_register(location)
    return locations


def cold_ms(locations: list[Location]) -> dict[str, float]:
    """Best ms for each wire format's first list of these locations."""
    return {
        name: min(_timed_ms(name, location, LARGE) for location in locations) for name in EXPORTS
    }


def run() -> list[Case]:
    """The cold, warm and after-a-change tool list of each wire format at 10,000 tools."""
    equal = cold_ms(fresh_locations(differ=False))
    locations = fresh_locations(differ=True)
    cold = cold_ms(locations)
    location = locations[0]
    changed: dict[str, float] = dict.fromkeys(EXPORTS, float("inf"))
    for count, extra in enumerate(definitions(CHANGES, prefix="zz_extra"), start=1):
        location.register(extra)
        for name in EXPORTS:
            changed[name] = min(changed[name], _timed_ms(name, location, LARGE + count))
    cases: list[Case] = []
    for name, export in EXPORTS.items():
        catalog = location.catalog()
        assert listed(name, export(catalog))[-1] == listed(name, export(catalog))[-1]
        warm = time_call(lambda: export(catalog)) / 1e3  # noqa: B023 (called at once)
        cases += [
            (f"target < 100: {name}.tools, {LARGE:,} tools, cold, equal schemas (ms)", equal[name]),
            (
                f"target < 100: {name}.tools, {LARGE:,} tools, cold, differing schemas (ms)",
                cold[name],
            ),
            (f"target < 1: {name}.tools, {LARGE:,} tools, warm (ms)", warm),
            (f"{name}.tools after one more registration (ms)", changed[name]),
        ]
    return cases
