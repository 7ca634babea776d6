"""Catalogs: the effective tools of one scope, as an immutable snapshot of a Registry."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal, cast, final

from toolfx.core.codemode import RUN_CODE, StubTool, code_transport
from toolfx.core.jsonschema import ValidationFailure
from toolfx.core.registry._model import (
    TRANSPORT_HANDLE,
    HookKind,
    Registration,
    ToolSchema,
)

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.registry._model import (
        Hook,
        HookFunction,
        PresentationMode,
        ScopeKey,
    )
    from toolfx.core.registry._registry import Registry
    from toolfx.core.tools import (
        CodeDispatchLogListener,
        ExecuteWrapper,
        OutputLimits,
        PostExecuteListener,
        PreExecuteListener,
        ResultObserver,
        ToolDefinition,
        ToolGuard,
    )

__all__ = [
    "Catalog",
    "CatalogData",
    "ExecutionMode",
    "HookPlan",
    "compile_catalog",
    "with_one_change",
]

ExecutionMode = Literal["parallel", "exclusive"]
"""How a pending call is scheduled: `parallel` may overlap siblings, `exclusive` runs alone."""


@final
@dataclass(frozen=True, slots=True)
class CatalogData:
    """One scope's compiled view: name lookup, hooks by kind, presentation mode, output limits.

    The lookup tables are for lookup: their order is not meaningful (a view derived from another
    by one change appends); `schemas` and `native_schemas` are in name order.
    """

    tools: MappingProxyType[str, Registration]
    """Every tool the scope sees, by name: a read-only view."""
    direct: MappingProxyType[str, Registration]
    """The tools a model-direct call reaches: under `code` only those outside Code Mode, and
    `run_code` under `code` and `both`."""
    code: MappingProxyType[str, Registration]
    """The tools a Code Mode program reaches (its sub-dispatches): the Code Mode tools."""
    inherited: MappingProxyType[str, Registration]
    """What a child scope inherits: every tool but this scope's own `run_code`."""
    plan: HookPlan
    mode: PresentationMode
    output_limits: OutputLimits
    """The limits of a tool that declares none (the Registry's)."""
    schemas: tuple[ToolSchema, ...] = field(compare=False)
    native_schemas: tuple[ToolSchema, ...] = field(compare=False)
    derived: dict[type, object] = field(default_factory=dict, compare=False, repr=False)
    """Forms made from this view once and kept with it (a provider's tool list), by their type."""


@final
@dataclass(frozen=True, slots=True)
class HookPlan:
    """One scope's hooks by kind, typed, in registration order: what a call runs through."""

    pre_execute: tuple[PreExecuteListener, ...]
    execute: tuple[ExecuteWrapper, ...]
    post_execute: tuple[PostExecuteListener, ...]
    code_dispatch_log: tuple[CodeDispatchLogListener, ...]
    result: tuple[ResultObserver, ...]
    guards: tuple[ToolGuard, ...]
    around_body: bool = field(init=False, repr=False, compare=False)
    """Whether a call has hooks before or around its body to go through: a pre-execute
    listener, a guard, an execute wrapper or a post-execute listener."""
    bare: bool = field(init=False, repr=False, compare=False)
    """Whether a call goes through none of them: no hook before or around its body and no
    result observer (Code Mode's dispatch log aside: it sees `run_code` calls only)."""

    def __post_init__(self) -> None:
        around = bool(self.pre_execute or self.guards or self.execute or self.post_execute)
        object.__setattr__(self, "around_body", around)
        object.__setattr__(self, "bare", not around and not self.result)

    def of_kind(self, kind: HookKind) -> tuple[HookFunction, ...]:
        """The hooks of one kind."""
        hooks: tuple[HookFunction, ...] = getattr(self, _PLAN_FIELDS[kind])
        return hooks


_PLAN_FIELDS: Final[Mapping[HookKind, str]] = {
    HookKind.PRE_EXECUTE: "pre_execute",
    HookKind.EXECUTE: "execute",
    HookKind.POST_EXECUTE: "post_execute",
    HookKind.CODE_DISPATCH_LOG: "code_dispatch_log",
    HookKind.RESULT: "result",
    HookKind.GUARD: "guards",
}


def compile_catalog(
    tools: dict[str, Registration],
    hooks: list[Hook],
    mode: PresentationMode,
    output_limits: OutputLimits,
    scope: ScopeKey | None,
) -> CatalogData:
    """Compile a scope's lookup table, schemas (sorted by name) and hook lists once; under
    `code` and `both` it offers `run_code` over the scope's Code Mode tools."""
    ordered = {name: tools[name] for name in sorted(tools)}  # str keys sort faster than items
    by_kind: dict[HookKind, list[HookFunction]] = {kind: [] for kind in HookKind}
    for hook in hooks:
        by_kind[hook.kind].append(hook.function)
    code = {n: r for n, r in ordered.items() if r.definition.options.codemode}
    inherited = MappingProxyType(ordered)
    direct = ordered
    if mode != "native":
        transport = Registration(TRANSPORT_HANDLE, scope, RUN_CODE, _transport(code))
        kept = ordered if mode == "both" else {n: r for n, r in ordered.items() if n not in code}
        direct = {name: kept.get(name, transport) for name in sorted([*kept, RUN_CODE])}
        ordered = {name: ordered.get(name, transport) for name in sorted([*ordered, RUN_CODE])}
    schemas = tuple(registration.schema for registration in ordered.values())
    frozen = {kind: tuple(functions) for kind, functions in by_kind.items()}
    plan = HookPlan(  # the kind of each hook says which shape its function has
        pre_execute=cast("tuple[PreExecuteListener, ...]", frozen[HookKind.PRE_EXECUTE]),
        execute=cast("tuple[ExecuteWrapper, ...]", frozen[HookKind.EXECUTE]),
        post_execute=cast("tuple[PostExecuteListener, ...]", frozen[HookKind.POST_EXECUTE]),
        code_dispatch_log=cast(
            "tuple[CodeDispatchLogListener, ...]", frozen[HookKind.CODE_DISPATCH_LOG]
        ),
        result=cast("tuple[ResultObserver, ...]", frozen[HookKind.RESULT]),
        guards=cast("tuple[ToolGuard, ...]", frozen[HookKind.GUARD]),
    )
    native_schemas = schemas if direct is ordered else tuple(r.schema for r in direct.values())
    # read-only views, one each: a caller holding the view cannot add, drop or swap a tool
    return CatalogData(
        inherited if mode == "native" else MappingProxyType(ordered),
        MappingProxyType(direct),
        MappingProxyType(code),
        inherited,
        plan,
        mode,
        output_limits,
        schemas,
        native_schemas,
    )


def with_one_change(
    view: CatalogData, name: str, visible: Registration | None
) -> CatalogData | None:
    """`view` after the tool `name` became `visible` (None: gone), for a native view; None
    for a view under Code Mode, whose `run_code` depends on every tool (compile it whole).

    Copies the lookup tables and inserts into the sorted schemas: no other tool is looked at.
    """
    if view.mode != "native":
        return None
    if view.tools.get(name) is visible:
        return view  # this scope does not see the change (shadowed, restricted, elsewhere)
    tools = view.tools.copy()
    code = view.code.copy()
    tools.pop(name, None)
    code.pop(name, None)
    if visible is not None:
        tools[name] = visible
        if visible.definition.options.codemode:
            code[name] = visible
    schemas = _with_schema(view.schemas, name, None if visible is None else visible.schema)
    inherited = MappingProxyType(tools)
    return CatalogData(
        inherited,
        MappingProxyType(tools),
        MappingProxyType(code),
        inherited,
        view.plan,
        view.mode,
        view.output_limits,
        schemas,
        schemas,
    )


_name_of: Final = attrgetter("name")


def _with_schema(
    schemas: tuple[ToolSchema, ...], name: str, schema: ToolSchema | None
) -> tuple[ToolSchema, ...]:
    """Name-sorted `schemas` with `name`'s entry replaced by `schema` (None: removed)."""
    at = bisect.bisect_left(schemas, name, key=_name_of)
    end = at + 1 if at < len(schemas) and schemas[at].name == name else at
    return schemas[:at] + (() if schema is None else (schema,)) + schemas[end:]


def _transport(code: Mapping[str, Registration]) -> ToolDefinition[Any, Any]:
    """`run_code` over these Code Mode tools (their schemas and declared outputs)."""
    return code_transport(
        [
            StubTool(
                name,
                registration.definition.description,
                registration.schema.parameters,
                registration.definition.output.schema.json_schema,
            )
            for name, registration in code.items()
        ]
    )


def _compiled_view(catalog: Catalog, name: str) -> CatalogData:
    """A catalog's `__getattr__`: its `view` on first use (the slot still unset), compiled once
    per registry value and kept in the slot for the next look."""
    if name != "view":
        raise AttributeError(f"{type(catalog).__name__!r} object has no attribute {name!r}")
    compiled = catalog._registry.data(catalog._scope)
    _set_view(catalog, compiled)
    return compiled


@final
class Catalog:
    """The tools one scope sees in one Registry: lookup, schemas, hooks and scheduling mode."""

    __slots__ = ("_registry", "_scope", "view")

    def __init__(self, registry: Registry, scope: ScopeKey | None) -> None:
        self._registry = registry
        self._scope = scope  # `view` is left unset: `__getattr__` compiles it on first use

    @property
    def registry(self) -> Registry:
        """The registry value this catalog is a snapshot of."""
        return self._registry

    @property
    def scope(self) -> ScopeKey | None:
        """The scope whose view this is (None: the global layer)."""
        return self._scope

    def __repr__(self) -> str:
        return f"<Catalog scope={self.scope!r} tools={len(self)}>"

    if TYPE_CHECKING:  # a slot read-only to its users (a property, read on every call, costs
        # a frame: the slot is read directly once `__getattr__` has filled it)

        @property
        def view(self) -> CatalogData:
            """This scope's compiled view (compiled on first use, then kept with this catalog)."""

    else:  # hidden from type checkers, which would take any attribute for one it gives
        __getattr__ = _compiled_view

    def __len__(self) -> int:
        return len(self.view.tools)

    def __contains__(self, name: object) -> bool:
        return name in self.view.tools

    def __iter__(self) -> Iterator[str]:
        return (schema.name for schema in self.view.schemas)  # in name order

    def get(self, name: str) -> ToolDefinition[Any, Any] | None:
        """The definition this scope resolves for `name`, or None when none is visible."""
        registration = self.view.tools.get(name)
        return None if registration is None else registration.definition

    def registration(self, name: str) -> Registration | None:
        """The visible registration for `name` (with its scope and permission), if any."""
        return self.view.tools.get(name)

    def direct(self, name: str) -> Registration | None:
        """The registration a model-direct call (one with no parent) may run, if any.

        Under the `code` presentation a tool in Code Mode is reached only through the Code Mode
        transport (a call with a parent); a model asking for it directly finds no such tool.
        """
        return self.view.direct.get(name)

    def direct_names(self) -> Iterator[str]:
        """The names a model-direct call may use, sorted."""
        return (schema.name for schema in self.view.native_schemas)

    def schemas(self) -> tuple[ToolSchema, ...]:
        """The model-facing schemas of every visible tool, sorted by name."""
        return self.view.schemas

    def native_schemas(self) -> tuple[ToolSchema, ...]:
        """The provider-native tool list: every tool, or under `code` those outside Code Mode."""
        return self.view.native_schemas

    @property
    def presentation_mode(self) -> PresentationMode:
        """How this scope's tools reach its model (nearest declaration, else the default)."""
        return self.view.mode

    def hooks(self, kind: HookKind) -> tuple[HookFunction, ...]:
        """The hooks of one kind for this scope's calls: global ones and its own, in order."""
        return self.view.plan.of_kind(kind)

    def guards(self) -> tuple[ToolGuard, ...]:
        """The guards for this scope's calls, in registration order."""
        return self.view.plan.guards

    @property
    def output_limits(self) -> OutputLimits:
        """The limits of this scope's tools that declare none (the Registry's)."""
        return self.view.output_limits

    @property
    def deps(self) -> object:
        """The dependencies given to calls that bring none of their own (the Registry's)."""
        return self._registry.deps

    @property
    def plan(self) -> HookPlan:
        """Every hook for this scope's calls, typed by kind."""
        return self.view.plan

    def execution_mode(self, name: str, arguments: FrozenJson) -> ExecutionMode:
        """Fail-closed scheduling: only an exact True from the tool's classifier is parallel."""
        return self.classified(name, arguments)[0]

    def classified(
        self, name: str, arguments: FrozenJson
    ) -> tuple[ExecutionMode, tuple[FrozenJson, Any] | ValidationFailure | None]:
        """The call's execution mode (see `execution_mode`) and its arguments decoded by the
        tool's parameters when finding the mode decoded them (None when it did not): the
        frozen JSON and the typed value, or why they are invalid. A batch hands the decoding to
        the call's run, so each call's arguments are validated once."""
        registration = self.view.tools.get(name)  # (`get`, inline: once per call of a batch)
        if registration is None:
            return ("exclusive", None)
        definition = registration.definition
        classifier = definition.is_concurrency_safe
        if classifier is None or classifier is False:
            return ("exclusive", None)
        decoded = definition.parameters.decode_or_failure(arguments)
        if isinstance(decoded, ValidationFailure):
            return ("exclusive", decoded)
        if classifier is True:  # declared parallel for every call with valid arguments
            return ("parallel", decoded)
        try:
            verdict = classifier(decoded[1])
        except Exception:  # a raising classifier is exclusive, by the spec
            return ("exclusive", decoded)
        return ("parallel" if verdict is True else "exclusive", decoded)


_set_view: Final = Catalog.__dict__["view"].__set__
"""Fills a catalog's `view` slot (read-only to the type checker)."""
