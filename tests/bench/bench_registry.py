"""Benchmarks of the registry: registering at scale, memory per registration, and catalogs.

Targets (the registry issue): taking a catalog under 5 µs at any size, `get` under 1 µs, 10,000
registrations under 1 s and under 3 KiB each. Taking a catalog is O(1); the scope's view is
compiled on first use after a change (O(tools)), which the "first use after a change" rows
measure separately from the warm take.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from typing import Any, Final, TypedDict

from tests.bench.harness import REPEATS, Case, time_call
from toolfx.core.json import parse_json
from toolfx.core.registry import Location, Registry
from toolfx.core.tools import Output, ToolDefinition, ToolRunContext, define_tool

LARGE: Final = 10_000
"""The large registry: as many tools as a deployment with several big MCP servers."""

SMALL: Final = 10
"""The small registry: a typical agent's built-in tools."""

DENIED: Final = 100
"""How many inherited tools the nested scope's restriction removes."""

Definition = ToolDefinition[Any, Any]


class PathArgs(TypedDict):
    """The arguments of every benchmark tool: one path."""

    path: str


def _body(args: PathArgs, context: ToolRunContext) -> int:
    return 1


def _parallel_safe(args: PathArgs) -> bool:
    return True


def definitions(count: int, prefix: str = "tool") -> list[Definition]:
    """`count` distinct trivial tools, named `<prefix>_00000` and on."""
    return [
        define_tool(
            name=f"{prefix}_{i:05d}",
            description=f"Benchmark tool number {i}.",
            parameters=PathArgs,
            output=Output(int),
            execute=_body,
        )
        for i in range(count)
    ]


def registry_of(tools: list[Definition]) -> Registry:
    """A Registry holding `tools` in the global layer."""
    registry = Registry()
    for definition in tools:
        registry, _ = registry.register(definition)
    return registry


def seconds_to_register(tools: list[Definition], repeats: int = 3) -> tuple[float, float]:
    """Best seconds to register `tools` one by one: through a Location, then a bare Registry."""
    via_location: list[float] = []
    via_registry: list[float] = []
    for _ in range(repeats):
        location = Location()
        start = time.perf_counter()
        for definition in tools:
            location.register(definition)
        via_location.append(time.perf_counter() - start)
        start = time.perf_counter()
        registry_of(tools)
        via_registry.append(time.perf_counter() - start)
    return min(via_location), min(via_registry)


def kib_per_registration(tools: list[Definition]) -> tuple[float, float]:
    """Memory the registrations add beyond their definitions, per tool (KiB): bare, compiled.

    Only the last Registry stays alive (each step's predecessor is freed); the second figure
    adds the compiled global view (lookup table and schemas) the first catalog use builds.
    """
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        registry = registry_of(tools)
        gc.collect()
        registered, _ = tracemalloc.get_traced_memory()
        registry.catalog().schemas()
        gc.collect()
        compiled, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    per_tool = 1024 * len(tools)
    return (registered - before) / per_tool, (compiled - before) / per_tool


def first_use_after_change(
    base: Registry, change: Definition, use: Callable[[Registry], object], batch: int
) -> float:
    """µs for `use` on a Registry just changed from `base` (its views not compiled yet)."""
    best = float("inf")
    for _ in range(REPEATS):
        fresh = [base.register(change)[0] for _ in range(batch)]
        start = time.perf_counter()
        for registry in fresh:
            use(registry)
        best = min(best, (time.perf_counter() - start) / batch)
    return best * 1e6


def nested_registry(base: Registry, tools: list[Definition]) -> Registry:
    """`base` plus scope `lead` and, under it, `worker`, which denies `DENIED` inherited tools."""
    registry = base.add_scope("lead").add_scope("worker", parent="lead")
    registry, _ = registry.restrict("worker", deny=[d.name for d in tools[:DENIED]])
    return registry


def run() -> list[Case]:
    """Registering 10,000 tools, memory per registration, catalogs at 10 and 10,000 tools."""
    large = definitions(LARGE)
    small = large[:SMALL]
    extra = definitions(1, prefix="extra")[0]
    probe = large[SMALL // 2].name
    location_s, registry_s = seconds_to_register(large)
    bare_kib, compiled_kib = kib_per_registration(large)
    cases: list[Case] = [
        (f"register {LARGE:,} tools via Location (s)", location_s),
        (f"register {LARGE:,} tools via Registry (s)", registry_s),
        ("memory per registration, beyond its definition (KiB)", bare_kib),
        ("memory per registration, with the compiled global view (KiB)", compiled_kib),
    ]
    cases += _size_cases(small, probe, extra, batch=200)
    cases += _size_cases(large, probe, extra, batch=5)
    hundred = registry_of(large[:100]).catalog()
    assert len(hundred.schemas()) == 100
    cases.append(("catalog.schemas(), 100 tools, warm", time_call(hundred.schemas)))
    cases.append(_execution_mode_case())
    cases += _nested_cases(large, extra)
    return cases


def _size_cases(tools: list[Definition], probe: str, extra: Definition, batch: int) -> list[Case]:
    size = f"{len(tools):,} tools"
    registry = registry_of(tools)
    catalog = registry.catalog()
    assert catalog.get(probe) is tools[SMALL // 2]  # compiles the view: the rest is warm
    location = Location(registry)
    return [
        (f"take catalog, warm, {size}", time_call(registry.catalog)),
        (f"take catalog via Location, warm, {size}", time_call(location.catalog)),
        (
            f"first catalog use after a change (take + compile + get), {size}",
            first_use_after_change(registry, extra, lambda r: r.catalog().get(probe), batch),
        ),
        (f"catalog.get, warm, {size}", time_call(lambda: catalog.get(probe))),
    ]


def _execution_mode_case() -> Case:
    safe = define_tool(
        name="read",
        description="Read a file.",
        parameters=PathArgs,
        output=Output(int),
        execute=_body,
        is_concurrency_safe=_parallel_safe,
    )
    catalog = Registry().register(safe)[0].catalog()
    arguments = parse_json('{"path": "src/a.py"}').unwrap()
    assert catalog.execution_mode("read", arguments) == "parallel"
    return (
        "execution_mode, parallel-safe tool",
        time_call(lambda: catalog.execution_mode("read", arguments)),
    )


def _nested_cases(large: list[Definition], extra: Definition) -> list[Case]:
    registry = nested_registry(registry_of(large), large)
    worker = registry.catalog("worker")
    assert len(worker) == LARGE - DENIED
    assert worker.get(large[0].name) is None
    visible = large[DENIED].name
    return [
        (
            f"nested scope (global {LARGE:,} tools, deny {DENIED}): first use after a change",
            first_use_after_change(
                registry, extra, lambda r: r.catalog("worker").get(visible), batch=3
            ),
        ),
        (
            f"nested scope (global {LARGE:,} tools, deny {DENIED}): take catalog, warm",
            time_call(lambda: registry.catalog("worker")),
        ),
        (
            f"nested scope (global {LARGE:,} tools, deny {DENIED}): catalog.get, warm",
            time_call(lambda: worker.get(visible)),
        ),
    ]
