"""The Location: one workspace's current Registry, with exact disposers and change notices.

A Location is the imperative shell around the persistent Registry: it keeps the current value in
an atomic cell (safe from several threads), offers the spec's registration methods, each
returning the exact `Disposer` that undoes only that registration, and notifies its change
listeners after every change that alters some scope's visible tools. Create one per workspace;
there is no process-global Location.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, final

from immutables import Map

from toolfx.core.registry._model import (
    GLOBAL,
    HookKind,
    tool_names,
)
from toolfx.core.registry._registry import Registry
from toolfx.core.runtime import AtomicCell, log_defect

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.registry._catalog import Catalog, ExecutionMode
    from toolfx.core.registry._model import (
        Handle,
        HookFunction,
        PresentationMode,
        ScopeKey,
        ToolSchema,
    )
    from toolfx.core.runtime import DefectReporter
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

__all__ = ["ChangeListener", "Disposer", "Location"]

ChangeListener = Callable[[], None]
"""Called after a change to the visible tools; unfiltered: it hears every scope's changes."""


@final
class Disposer:
    """Undoes exactly one registration (or one `register_all`); calling it again does nothing."""

    __slots__ = ("_dispose", "_handles", "_owner")

    def __init__(
        self,
        dispose: Callable[[], object],
        *,
        owner: object = None,
        handles: tuple[Handle, ...] = (),
    ) -> None:
        self._dispose = dispose
        self._owner = owner  # the Location's cell, so `register_all(replacing=...)` can check it
        self._handles = handles

    def __call__(self) -> None:
        self._dispose()


@final
class Location:
    """One workspace's tools: the current Registry, its registration methods and catalogs."""

    __slots__ = ("_cell", "_keys", "_listeners", "_on_defect")

    def __init__(
        self,
        registry: Registry | None = None,
        *,
        on_defect: DefectReporter = log_defect,
        output_limits: OutputLimits | None = None,
        deps: object = None,
    ) -> None:
        """`output_limits` (None: the registry's) bound the text of tools that declare none;
        `deps` (None: the registry's) are what bodies read from `ctx.deps` when a call brings
        none of its own."""
        start = registry if registry is not None else Registry()
        if output_limits is not None:
            start = start.with_output_limits(output_limits)
        if deps is not None:
            start = start.with_deps(deps)
        self._cell = AtomicCell(start)
        self._listeners: AtomicCell[Map[int, ChangeListener]] = AtomicCell(Map())
        self._keys = itertools.count()
        self._on_defect = on_defect

    @property
    def registry(self) -> Registry:
        """The current Registry (a persistent value: keep it as a snapshot if you like)."""
        return self._cell.get()

    def catalog(self, scope: ScopeKey | None = GLOBAL) -> Catalog:
        """The effective tools of one scope now: an O(1), unchangeable snapshot."""
        return self._cell.get().catalog(scope)

    def get(self, name: str, scope: ScopeKey | None = GLOBAL) -> ToolDefinition[Any, Any] | None:
        """The definition `scope` resolves for `name` now, or None."""
        return self.catalog(scope).get(name)

    def schemas(self, scope: ScopeKey | None = GLOBAL) -> tuple[ToolSchema, ...]:
        """The model-facing schemas `scope` sees now."""
        return self.catalog(scope).schemas()

    def execution_mode(
        self, name: str, arguments: FrozenJson, scope: ScopeKey | None = GLOBAL
    ) -> ExecutionMode:
        """Fail-closed scheduling mode of a pending call as `scope` sees it now."""
        return self.catalog(scope).execution_mode(name, arguments)

    # Registration methods ----------------------------------------------------------------------

    def add_scope(self, scope: ScopeKey, parent: ScopeKey | None = GLOBAL) -> Disposer:
        """Add an agent scope; the disposer removes it with its descendants and registrations.

        The disposer is exact: once this scope is gone, it never removes a scope re-added later
        under the same key.
        """

        def add(registry: Registry) -> tuple[Registry, Handle]:
            new = registry.add_scope(scope, parent)
            return new, new.scope_handle(scope)

        return self._hold(add, visible=True)

    def register(
        self,
        definition: ToolDefinition[Any, Any],
        scope: ScopeKey | None = GLOBAL,
        *,
        shadow: bool = False,
    ) -> Disposer:
        """Register a tool globally or in a scope (see `Registry.register`)."""
        return self._hold(lambda r: r.register(definition, scope, shadow=shadow), visible=True)

    def register_all(
        self,
        definitions: Iterable[ToolDefinition[Any, Any]],
        scope: ScopeKey | None = GLOBAL,
        *,
        replacing: Disposer | None = None,
    ) -> Disposer:
        """Register several tools in one change: all of them, or none if one is refused.

        `replacing` (a disposer of this Location's `register` or `register_all`) is undone in
        the same change, so a catalog shows the old tools or the new ones, never a mix, and
        change listeners hear once. The returned disposer removes every tool registered here.
        """
        tools = tuple(definitions)
        if replacing is not None and replacing._owner is not self._cell:
            raise ValueError("`replacing` must be a disposer given by this Location")
        replaced = () if replacing is None else replacing._handles

        def change(registry: Registry) -> tuple[Registry, tuple[Handle, ...]]:
            registry = _without_handles(registry, replaced)
            handles: list[Handle] = []
            for definition in tools:
                registry, handle = registry.register(definition, scope)
                handles.append(handle)
            return registry, tuple(handles)

        return self._hold_all(change, visible=True)

    def restrict(
        self,
        scope: ScopeKey,
        *,
        allow: Iterable[str] | None = None,
        deny: Iterable[str] | None = None,
    ) -> Disposer:
        """Filter the tools `scope` inherits (see `Registry.restrict`)."""
        allowed = None if allow is None else tool_names(allow, "allow")
        denied = None if deny is None else tool_names(deny, "deny")
        return self._hold(lambda r: r.restrict(scope, allow=allowed, deny=denied), visible=True)

    def present_as(self, scope: ScopeKey, mode: PresentationMode) -> Disposer:
        """Present `scope`'s tools as `mode`; the disposer restores the inherited default."""
        return self._hold(lambda r: r.present_as(scope, mode), visible=True)

    def guard(self, guard: ToolGuard, scope: ScopeKey | None = GLOBAL) -> Disposer:
        """Add a monotonic guard: global, or for one agent's calls."""
        return self._hook(HookKind.GUARD, guard, scope)

    def on_pre_execute(
        self, listener: PreExecuteListener, scope: ScopeKey | None = GLOBAL
    ) -> Disposer:
        """Add a pre-execute (allow/deny/ask) listener."""
        return self._hook(HookKind.PRE_EXECUTE, listener, scope)

    def wrap_execute(self, wrapper: ExecuteWrapper, scope: ScopeKey | None = GLOBAL) -> Disposer:
        """Add an around-dispatch wrapper (timeouts, retries, metrics)."""
        return self._hook(HookKind.EXECUTE, wrapper, scope)

    def on_post_execute(
        self, listener: PostExecuteListener, scope: ScopeKey | None = GLOBAL
    ) -> Disposer:
        """Add a post-execute (accept/replace/block) listener."""
        return self._hook(HookKind.POST_EXECUTE, listener, scope)

    def on_code_dispatch_log(
        self, listener: CodeDispatchLogListener, scope: ScopeKey | None = GLOBAL
    ) -> Disposer:
        """Add a listener that may reshape the logged copy of Code Mode sub-dispatches."""
        return self._hook(HookKind.CODE_DISPATCH_LOG, listener, scope)

    def on_result(self, observer: ResultObserver, scope: ScopeKey | None = GLOBAL) -> Disposer:
        """Add an observer of frozen final results."""
        return self._hook(HookKind.RESULT, observer, scope)

    def on_change(self, listener: ChangeListener) -> Disposer:
        """Hear every change to any scope's visible tools (unfiltered)."""
        key = next(self._keys)
        self._listeners.update(lambda ls: (ls.set(key, listener), None))
        return Disposer(
            lambda: self._listeners.update(lambda ls: (_without_listener(ls, key), None))
        )

    # Internals ------------------------------------------------------------------------------------

    def _hook(self, kind: HookKind, function: HookFunction, scope: ScopeKey | None) -> Disposer:
        return self._hold(lambda r: r.add_hook(kind, function, scope), visible=False)

    def _hold(
        self, change: Callable[[Registry], tuple[Registry, Handle]], *, visible: bool
    ) -> Disposer:
        def one(registry: Registry) -> tuple[Registry, tuple[Handle, ...]]:
            new, handle = change(registry)
            return new, (handle,)

        return self._hold_all(one, visible=visible)

    def _hold_all(
        self, change: Callable[[Registry], tuple[Registry, tuple[Handle, ...]]], *, visible: bool
    ) -> Disposer:
        def apply(registry: Registry) -> tuple[Registry, bool]:
            new, handles = change(registry)
            attempts.append(handles)
            return new, visible

        attempts: list[tuple[Handle, ...]] = []
        self._change(apply)
        handles = attempts[-1]  # the attempt that won (a contended change runs again)
        return Disposer(partial(self._dispose, handles), owner=self._cell, handles=handles)

    def _dispose(self, handles: tuple[Handle, ...]) -> None:
        def dispose(registry: Registry) -> tuple[Registry, bool]:
            seen = any(registry.affects_tools(handle) for handle in handles)
            return _without_handles(registry, handles), seen

        self._change(dispose)  # (made when called: a registration keeps no closure for it)

    def _change(self, change: Callable[[Registry], tuple[Registry, bool]]) -> None:
        old, new, visible = self._cell.update(change)
        if visible and new is not old:
            self._notify()

    def _notify(self) -> None:
        listeners = self._listeners.get()
        if not listeners:  # the usual case while tools are being registered: nothing to walk
            return
        for listener in listeners.values():
            try:
                listener()
            except Exception as error:  # contained: one listener cannot break the others
                self._on_defect(error, f"change listener {listener!r}")


def _without_listener(listeners: Map[int, ChangeListener], key: int) -> Map[int, ChangeListener]:
    return listeners.delete(key) if key in listeners else listeners


def _without_handles(registry: Registry, handles: tuple[Handle, ...]) -> Registry:
    for handle in handles:
        registry = registry.dispose(handle)
    return registry
