"""Benchmarks of the provider tool lists: `tools(catalog)` of each wire format at 10,000 tools.

Target (issue 13): a second `tools(catalog)` on an unchanged catalog snapshot under 1 ms (it is
a lookup in what the snapshot keeps). The cold rows make the list from a fresh snapshot whose
view is already compiled, so they measure the export alone.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, Final

from tests.bench.bench_registry import LARGE, definitions
from tests.bench.harness import REPEATS, Case, time_call
from toolfx.core.providers import anthropic_messages, gemini, openai_chat, openai_responses
from toolfx.core.registry import Catalog, Registry

EXPORTS: Final[dict[str, Callable[[Catalog], Any]]] = {
    "openai_chat": openai_chat.tools,
    "openai_responses": openai_responses.tools,
    "anthropic_messages": anthropic_messages.tools,
    "gemini": gemini.tools,
}


def _fresh_catalogs(registry: Registry, count: int) -> list[Catalog]:
    """`count` snapshots of `registry`, each one more tool apart, their views compiled."""
    catalogs = []
    for extra in definitions(count, prefix="extra"):
        registry, _ = registry.register(extra)
        catalog = registry.catalog()
        _ = catalog.view  # compiled here: the cold rows time the export only
        catalogs.append(catalog)
    return catalogs


def _cold_ms(export: Callable[[Catalog], Any], catalogs: list[Catalog]) -> float:
    best = float("inf")
    for catalog in catalogs:
        start = time.perf_counter()
        export(catalog)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def run() -> list[Case]:
    """The cold and cached tool list of each wire format at 10,000 tools."""
    registry = Registry()
    for definition in definitions(LARGE):
        registry, _ = registry.register(definition)
    cases: list[Case] = []
    for name, export in EXPORTS.items():
        catalogs = _fresh_catalogs(registry, REPEATS)
        cases.append((f"{name}.tools, 10,000 tools, cold (ms)", _cold_ms(export, catalogs)))
        cached = functools.partial(export, catalogs[-1])
        cases.append((f"{name}.tools, 10,000 tools, cached", time_call(cached)))
    return cases
