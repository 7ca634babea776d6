"""Benchmarks of the registry: registering at scale, memory per registration, and catalogs.

Targets (issue 17): 10,000 tools, each with its own argument type (a TypedDict class made per
tool), defined and registered in under 1 s and at most 3 KiB each; one more registration plus
the schema listing under 1 ms. Two kinds of distinct types are measured: structurally equal ones
(the same schema from distinct classes) and ones whose schemas really differ (a property name of
their own). Taking a catalog is O(1); the scope's view is compiled on first use after a change,
from the view before the change when the change is one registration or one removal.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypedDict, final

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

_TYPED_DICT: Any = TypedDict  # called with names made at run time (mypy wants literals)


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


def argument_types(count: int, *, differ: bool, tag: str = "") -> list[type]:
    """`count` TypedDict classes, one per tool: the same schema, or a property name each (with
    `tag` in it: a tag of its own gives schemas never compiled before in this process)."""
    return [
        _TYPED_DICT(f"Args{i}", {f"path_{tag}{i}" if differ else "path": str, "limit": int})
        for i in range(count)
    ]


@final
@dataclass(frozen=True, slots=True)
class ToolSpecs:
    """What a user writes for each of `count` tools before defining them: names, descriptions,
    argument types (made outside every measurement: the tools' own source)."""

    names: list[str]
    descriptions: list[str]
    types: list[type]

    @staticmethod
    def make(count: int, *, differ: bool, prefix: str = "tool", tag: str = "") -> ToolSpecs:
        """Specs for `count` tools whose argument types are distinct classes."""
        return ToolSpecs(
            [f"{prefix}_{i:05d}" for i in range(count)],
            [f"Benchmark tool number {i}." for i in range(count)],
            argument_types(count, differ=differ, tag=tag),
        )

    def define_and_register(self, location: Location) -> None:
        """Define every tool (its schema derived) and register it, one by one."""
        for name, description, arguments in zip(
            self.names, self.descriptions, self.types, strict=True
        ):
            location.register(
                define_tool(
                    name=name,
                    description=description,
                    parameters=arguments,
                    output=Output(int),
                    execute=_body,
                )
            )


def distinct_type_cases(differ: bool) -> list[Case]:
    """Seconds to define and register 10,000 tools with distinct argument types, and KiB each.

    The memory is what tracemalloc sees `define_tool` + `Location.register` allocate and keep
    (the definition, its derived schema, decoder and frozen schema JSON unless shared, the
    caches' entries, the registration, its schema, the persistent maps' entries); the names,
    descriptions and classes are made before. No jsonschema-rs validator is compiled yet (a
    tool's is, on its first validation: see `first_validation_us`); they live in Rust memory,
    which tracemalloc does not see.
    """
    kind = "differing schemas" if differ else "equal schemas"
    seconds = float("inf")
    for repeat in range(2):  # fresh classes each time: a type's schema is derived once per type
        # and differing schemas never seen before: the first repeat's compiled schemas are still
        # held (schema_of keeps every type's schema), and must not make the second one warm
        specs = ToolSpecs.make(LARGE, differ=differ, tag=f"r{repeat}_")
        location = Location()
        gc.collect()  # the 80,000 objects of the classes just made are theirs to collect
        start = time.perf_counter()
        specs.define_and_register(location)
        seconds = min(seconds, time.perf_counter() - start)
        catalog = location.catalog()
        assert len(catalog) == LARGE
        frozen_schemas = {id(schema.parameters) for schema in catalog.schemas()}
        assert len(frozen_schemas) == (LARGE if differ else 1)  # 10,000 compiled schemas, or 1
    specs = ToolSpecs.make(LARGE, differ=differ, tag="memory_")
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        location = Location()
        specs.define_and_register(location)
        gc.collect()
        registered, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(location.schemas()) == LARGE
    return [
        (
            f"target < 1: register {LARGE:,} tools with distinct argument types, {kind} (s)",
            seconds,
        ),
        (
            f"target <= 3: memory per tool, define_tool + register, {kind} (KiB)",
            (registered - before) / 1024 / LARGE,
        ),
    ]


def first_validation_us(batch: int = 200) -> float:
    """Best µs for a registered tool's first validation of its arguments: it compiles the
    tool's validator (a schema never compiled before), which defining and registering do not."""
    best = float("inf")
    for repeat in range(REPEATS):
        specs = ToolSpecs.make(batch, differ=True, tag=f"first{repeat}_")
        location = Location()
        specs.define_and_register(location)
        registered = [location.catalog().get(name) for name in specs.names]
        firsts = [
            (tool.parameters, parse_json(f'{{"path_first{repeat}_{i}": "a", "limit": 5}}').unwrap())
            for i, tool in enumerate(registered)
            if tool is not None
        ]
        assert len(firsts) == batch
        start = time.perf_counter()
        decoded = [parameters.decode_or_failure(arguments) for parameters, arguments in firsts]
        best = min(best, (time.perf_counter() - start) / batch)
        assert all(isinstance(outcome, tuple) for outcome in decoded)  # every one valid
    return best * 1e6


def one_more_registration_ms(batch: int = 20) -> float:
    """Best ms for one more registration and the new snapshot's `schemas()` at 10,000 tools."""
    location = Location(registry_of(definitions(LARGE)))
    assert len(location.schemas()) == LARGE  # the view before the change is compiled
    best = float("inf")
    for extra in definitions(batch, prefix="zz_extra"):  # sorts last
        start = time.perf_counter()
        location.register(extra)
        schemas = location.schemas()
        best = min(best, time.perf_counter() - start)
        assert schemas[-1].name == extra.name
        assert len(schemas) == len(location.catalog())
    assert len(location.schemas()) == LARGE + batch
    return best * 1e3


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
        *distinct_type_cases(differ=False),
        *distinct_type_cases(differ=True),
        ("target < 1: one more registration + schemas() (ms)", one_more_registration_ms()),
        (
            "first validation of a new tool's arguments (compiles its validator)",
            first_validation_us(),
        ),
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
