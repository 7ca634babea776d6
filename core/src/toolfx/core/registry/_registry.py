"""The Registry: a persistent value holding every scope, registration, restriction and hook.

Every operation returns a new Registry and leaves the old one as it was, so a Catalog taken from
a Registry is a free snapshot. Refused operations raise `RegistryError` naming the offending item.
Visibility for a scope: its own registrations shadow what it inherits, and what it inherits is
its parent's view (the global layer for a top-level scope) filtered by the scope's restrictions.
Within one placement (scope and flattened name) the latest registration wins; disposing of one
removes only it and reveals the one before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, final

from immutables import Map

from toolfx.core.registry._catalog import Catalog, compile_catalog, with_one_change
from toolfx.core.registry._model import (
    GLOBAL,
    Hook,
    Registration,
    RegistryError,
    RegistryErrorKind,
    Restriction,
    check_tool_name,
    flat_name,
    tool_names,
)
from toolfx.core.registry._scopes import (
    admitted,
    check_restricted_names,
    descendants,
    mode_of,
    refuse_global,
    require_scope,
    without,
)
from toolfx.core.tools import DEFAULT_OUTPUT_LIMITS, OutputLimits

if TYPE_CHECKING:
    from toolfx.core.registry._catalog import CatalogData
    from toolfx.core.registry._model import (
        Handle,
        HookFunction,
        HookKind,
        PresentationMode,
        ScopeKey,
    )
    from toolfx.core.tools import ToolDefinition

__all__ = ["Registry"]

_Stack = tuple[Registration, ...]
"""One placement's registrations, the active one last (shadowing is rare: a tuple is enough)."""

_Layer = Map[str, _Stack]
_EMPTY_LAYER: Final[_Layer] = Map()


@final
class Registry:
    """A persistent value: scopes, registration stacks, restrictions, hooks, presentation modes."""

    __slots__ = (
        "_default_mode",
        "_deps",
        "_hooks",
        "_layers",
        "_memo",
        "_modes",
        "_next",
        "_origin",
        "_output_limits",
        "_parents",
        "_placements",
        "_restrictions",
        "_scope_handles",
    )

    _parents: Map[ScopeKey, ScopeKey | None]
    _scope_handles: Map[ScopeKey, Handle]
    _layers: Map[ScopeKey | None, _Layer]
    _placements: Map[Handle, tuple[ScopeKey | None, str]]
    _restrictions: Map[Handle, Restriction]
    _hooks: Map[Handle, Hook]
    _modes: Map[ScopeKey, tuple[Handle, PresentationMode]]
    _next: Handle
    _default_mode: PresentationMode
    _output_limits: OutputLimits
    _deps: object
    _memo: dict[ScopeKey | None, CatalogData]
    _origin: tuple[dict[ScopeKey | None, CatalogData], str] | None
    """The compiled views of the registry this one differs from by one tool name's
    registrations, and that name: what a view is derived from instead of compiled whole."""

    def __init__(
        self,
        default_mode: PresentationMode = "native",
        output_limits: OutputLimits = DEFAULT_OUTPUT_LIMITS,
    ) -> None:
        self._parents = Map()
        self._scope_handles = Map()
        self._layers = Map()
        self._placements = Map()
        self._restrictions = Map()
        self._hooks = Map()
        self._modes = Map()
        self._next = 1
        self._default_mode = default_mode
        self._output_limits = _checked_limits(output_limits)
        self._deps = None
        self._memo = {}
        self._origin = None

    def _evolve(self, **changes: Any) -> Registry:
        new = object.__new__(Registry)
        for name in _VALUE_SLOTS:
            setattr(new, name, getattr(self, name))
        new._memo = {}
        new._origin = None
        for name, value in changes.items():  # the changed value slots, and `_origin` if given
            setattr(new, name, value)
        return new

    def __repr__(self) -> str:
        tools = sum(len(stack) for layer in self._layers.values() for stack in layer.values())
        return f"<Registry scopes={len(self._parents)} registrations={tools}>"

    @property
    def output_limits(self) -> OutputLimits:
        """The limits of every tool that declares none of its own."""
        return self._output_limits

    def with_output_limits(self, limits: OutputLimits) -> Registry:
        """This registry with `limits` for every tool that declares none of its own."""
        return self._evolve(_output_limits=_checked_limits(limits))

    @property
    def deps(self) -> object:
        """The dependencies its tools' bodies read from `ctx.deps` (None: none provided)."""
        return self._deps

    def with_deps(self, deps: object) -> Registry:
        """This registry providing `deps` to every call that brings none of its own."""
        return self._evolve(_deps=deps)

    # Scopes ---------------------------------------------------------------------------------

    @property
    def scopes(self) -> Mapping[ScopeKey, ScopeKey | None]:
        """Every agent scope and its parent (None: directly under the global layer): a read-only
        dict view, equal to any mapping with the same items."""
        return MappingProxyType(dict(self._parents))

    def add_scope(self, scope: ScopeKey, parent: ScopeKey | None = GLOBAL) -> Registry:
        """Add an agent scope under `parent` (the global layer by default)."""
        if scope in self._parents:
            raise RegistryError(RegistryErrorKind.SCOPE_EXISTS, f"scope {scope!r} already exists")
        require_scope(self._parents, parent)
        handle = self._next
        return self._evolve(
            _parents=self._parents.set(scope, parent),
            _scope_handles=self._scope_handles.set(scope, handle),
            _next=handle + 1,
        )

    def scope_handle(self, scope: ScopeKey) -> Handle:
        """The handle of this scope's current incarnation: disposing of it removes the scope."""
        require_scope(self._parents, scope)
        return self._scope_handles[scope]

    def remove_scope(self, scope: ScopeKey) -> Registry:
        """Remove a scope, its descendants and everything registered in them (no-op if absent)."""
        if scope not in self._parents:
            return self
        doomed = descendants(self._parents, scope)
        return self._evolve(
            _parents=without(self._parents, doomed),
            _scope_handles=without(self._scope_handles, doomed),
            _layers=without(self._layers, doomed),
            _placements=Map({h: p for h, p in self._placements.items() if p[0] not in doomed}),
            _restrictions=Map(
                {h: r for h, r in self._restrictions.items() if r.scope not in doomed}
            ),
            _hooks=Map({h: k for h, k in self._hooks.items() if k.scope not in doomed}),
            _modes=without(self._modes, doomed),
        )

    # Registrations --------------------------------------------------------------------------

    def register(
        self,
        definition: ToolDefinition[Any, Any],
        scope: ScopeKey | None = GLOBAL,
        *,
        shadow: bool = False,
    ) -> tuple[Registry, Handle]:
        """Register a tool in a scope; an active same-placement tool needs `shadow=True`."""
        require_scope(self._parents, scope)
        name = flat_name(definition)
        check_tool_name(name)
        layer = self._layers.get(scope, _EMPTY_LAYER)
        stack = layer.get(name, ())
        if stack and not shadow:
            where = "the global layer" if scope is GLOBAL else f"scope {scope!r}"
            raise RegistryError(
                RegistryErrorKind.ALREADY_REGISTERED,
                f"tool {name!r} is already registered in {where}; pass shadow=True to "
                "register over it (disposing of the new one reveals the old)",
            )
        handle = self._next
        registration = Registration(handle, scope, name, definition)
        new = self._evolve(
            _layers=self._layers.set(scope, layer.set(name, (*stack, registration))),
            _placements=self._placements.set(handle, (scope, name)),
            _next=handle + 1,
            _origin=(self._memo, name),
        )
        return new, handle

    # Restrictions ---------------------------------------------------------------------------

    def restrict(
        self,
        scope: ScopeKey,
        *,
        allow: Iterable[str] | None = None,
        deny: Iterable[str] | None = None,
    ) -> tuple[Registry, Handle]:
        """Filter the tools a scope inherits: keep only `allow`, remove `deny`; they intersect."""
        refuse_global(scope, "restrictions apply to an agent scope's inherited tools")
        require_scope(self._parents, scope)
        allowed = None if allow is None else tool_names(allow, "allow")
        denied = tool_names(deny or (), "deny")
        if not allowed and not denied:
            raise RegistryError(
                RegistryErrorKind.EMPTY_RESTRICTION,
                f"the restriction for scope {scope!r} names no tool to allow or deny",
            )
        check_restricted_names(
            scope,
            (allowed or frozenset()) | denied,
            self._layers.get(scope, _EMPTY_LAYER),
            self.data(self._parents[scope]).tools,
        )
        handle = self._next
        restriction = Restriction(handle, scope, allowed, denied)
        new = self._evolve(
            _restrictions=self._restrictions.set(handle, restriction), _next=handle + 1
        )
        return new, handle

    # Hooks, guards, presentation -------------------------------------------------------------

    def add_hook(
        self, kind: HookKind, function: HookFunction, scope: ScopeKey | None = GLOBAL
    ) -> tuple[Registry, Handle]:
        """Add a guard, waterfall listener or result observer, global or for one agent."""
        require_scope(self._parents, scope)
        handle = self._next
        hook = Hook(handle, kind, scope, function)
        return self._evolve(_hooks=self._hooks.set(handle, hook), _next=handle + 1), handle

    def present_as(self, scope: ScopeKey, mode: PresentationMode) -> tuple[Registry, Handle]:
        """Declare how a scope's tools reach its model; one declaration per scope."""
        refuse_global(scope, "presentation is declared per agent scope (the default is global)")
        require_scope(self._parents, scope)
        if scope in self._modes:
            raise RegistryError(
                RegistryErrorKind.PRESENTATION_DECLARED,
                f"scope {scope!r} already declares presentation {self._modes[scope][1]!r}",
            )
        handle = self._next
        new = self._evolve(_modes=self._modes.set(scope, (handle, mode)), _next=handle + 1)
        return new, handle

    # Disposal --------------------------------------------------------------------------------

    def affects_tools(self, handle: Handle) -> bool:
        """Whether disposing of `handle` changes some scope's visible tools or presentation."""
        placement = self._placements.get(handle)
        if placement is not None:
            scope, name = placement
            return self._layers[scope][name][-1].handle == handle
        return (
            handle in self._restrictions
            or any(h == handle for h, _ in self._modes.values())
            or any(h == handle for h in self._scope_handles.values())
        )

    def dispose(self, handle: Handle) -> Registry:
        """Remove exactly what `handle` registered; disposing twice is harmless."""
        placement = self._placements.get(handle)
        if placement is not None:
            return self._unregister(handle, placement)
        if handle in self._restrictions:
            return self._evolve(_restrictions=self._restrictions.delete(handle))
        if handle in self._hooks:
            return self._evolve(_hooks=self._hooks.delete(handle))
        for scope, (declared, _) in self._modes.items():
            if declared == handle:
                return self._evolve(_modes=self._modes.delete(scope))
        for scope, incarnation in self._scope_handles.items():
            if incarnation == handle:  # only this incarnation: a re-added scope is another
                return self.remove_scope(scope)
        return self

    def _unregister(self, handle: Handle, placement: tuple[ScopeKey | None, str]) -> Registry:
        scope, name = placement
        layer = self._layers[scope]
        stack = tuple(r for r in layer[name] if r.handle != handle)
        layer = layer.set(name, stack) if stack else layer.delete(name)
        layers = self._layers.set(scope, layer) if layer else self._layers.delete(scope)
        return self._evolve(
            _layers=layers, _placements=self._placements.delete(handle), _origin=(self._memo, name)
        )

    # Views -----------------------------------------------------------------------------------

    def catalog(self, scope: ScopeKey | None = GLOBAL) -> Catalog:
        """The effective tools for one scope: an O(1) snapshot, compiled on first use."""
        require_scope(self._parents, scope)
        return Catalog(self, scope)

    def data(self, scope: ScopeKey | None) -> CatalogData:
        """The compiled view of one scope (cached: the registry never changes), derived from the
        view before the last change when that was one registration or removal, else compiled."""
        cached = self._memo.get(scope)
        if cached is None:
            cached = self._memo.setdefault(scope, self._derived(scope) or self._compile(scope))
            origin = self._origin
            if origin is not None and origin[0].keys() <= self._memo.keys():
                self._origin = None  # every view it could give is derived: let it go
        return cached

    def _derived(self, scope: ScopeKey | None) -> CatalogData | None:
        origin = self._origin
        if origin is None:
            return None
        views, name = origin
        before = views.get(scope)
        return None if before is None else with_one_change(before, name, self._visible(scope, name))

    def _visible(self, scope: ScopeKey | None, name: str) -> Registration | None:
        """The registration `scope` sees for `name`: its own, else an admitted inherited one."""
        while True:
            stack = self._layers.get(scope, _EMPTY_LAYER).get(name)
            if stack:
                return stack[-1]
            if scope is GLOBAL:
                return None
            if not all(r.admits(name) for r in self._restrictions.values() if r.scope == scope):
                return None
            scope = self._parents[scope]

    def _compile(self, scope: ScopeKey | None) -> CatalogData:
        own = {name: stack[-1] for name, stack in self._layers.get(scope, _EMPTY_LAYER).items()}
        if scope is GLOBAL:
            tools = own
        else:
            inherited = self.data(self._parents[scope]).inherited
            tools = admitted(
                inherited, [r for r in self._restrictions.values() if r.scope == scope]
            )
            tools.update(own)
        hooks = sorted(
            (h for h in self._hooks.values() if h.scope is GLOBAL or h.scope == scope),
            key=lambda h: h.handle,
        )
        mode = mode_of(self._parents, self._modes, self._default_mode, scope)
        return compile_catalog(tools, hooks, mode, self._output_limits, scope)


_VALUE_SLOTS: Final = tuple(name for name in Registry.__slots__ if name not in {"_memo", "_origin"})
"""The slots that make a Registry's value (the others cache views)."""


def _checked_limits(limits: OutputLimits) -> OutputLimits:
    if not isinstance(limits, OutputLimits):
        raise TypeError(f"output_limits must be an OutputLimits, not {limits!r}")
    return limits
