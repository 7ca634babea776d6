"""The Registry's scope tree: which scopes exist, what each inherits, and what goes with it.

A scope must exist before anything names it, and a rule made per agent refuses the global layer.
Removing a scope removes its descendants too. A scope's restrictions filter the tools it inherits
(and may name only tools it inherits); its presentation mode is its own declaration, or the
nearest ancestor's, or the registry's default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from immutables import Map

from toolfx.core.registry._model import (
    GLOBAL,
    RESERVED_NAMES,
    RegistryError,
    RegistryErrorKind,
)

if TYPE_CHECKING:
    from toolfx.core.registry._model import (
        Handle,
        PresentationMode,
        Registration,
        Restriction,
        ScopeKey,
    )

__all__ = [
    "admitted",
    "check_restricted_names",
    "descendants",
    "mode_of",
    "refuse_global",
    "require_scope",
    "without",
]


def require_scope(parents: Mapping[ScopeKey, ScopeKey | None], scope: ScopeKey | None) -> None:
    """Refuse a scope that does not exist (the global layer always does)."""
    if scope is not GLOBAL and scope not in parents:
        raise RegistryError(RegistryErrorKind.UNKNOWN_SCOPE, f"scope {scope!r} does not exist")


def refuse_global(scope: ScopeKey | None, why: str) -> None:
    """Refuse an operation that is for agent scopes only, saying why."""
    if scope is GLOBAL:
        raise RegistryError(RegistryErrorKind.GLOBAL_LAYER, f"not for the global layer: {why}")


def descendants(
    parents: Mapping[ScopeKey, ScopeKey | None], scope: ScopeKey
) -> frozenset[ScopeKey]:
    """The scope and every scope below it."""
    found = {scope}
    grew = True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in found and child not in found:
                found.add(child)
                grew = True
    return frozenset(found)


def without(mapping: Map[Any, Any], keys: Iterable[object]) -> Map[Any, Any]:
    """The mapping without those keys (the scopes removed with a scope)."""
    mutation = mapping.mutate()
    for key in keys:
        mutation.pop(key, None)
    return mutation.finish()


def check_restricted_names(
    scope: ScopeKey,
    names: frozenset[str],
    own: Mapping[str, object],
    inherited: Mapping[str, Registration],
) -> None:
    """Refuse a restriction that names a reserved, a scope-local or a not inherited tool."""
    for kind, offending, what in (
        (RegistryErrorKind.RESERVED_NAME, names & RESERVED_NAMES, "reserved for Code Mode"),
        (RegistryErrorKind.SCOPE_LOCAL_TOOL, {n for n in names if n in own}, "scope-local"),
        (
            RegistryErrorKind.UNKNOWN_TOOL,
            {n for n in names if n not in inherited and n not in own} - RESERVED_NAMES,
            "not inherited by this scope",
        ),
    ):
        if offending:
            listed = ", ".join(repr(n) for n in sorted(offending))
            raise RegistryError(kind, f"cannot restrict scope {scope!r}: {listed}: {what}")


def admitted(
    inherited: Mapping[str, Registration], filters: list[Restriction]
) -> dict[str, Registration]:
    """The inherited tools every filter admits (the filters combined, checked once per name)."""
    if not filters:
        return dict(inherited)
    denied = frozenset().union(*(f.deny for f in filters))
    allows = [f.allow for f in filters if f.allow is not None]
    if not allows:
        return {name: r for name, r in inherited.items() if name not in denied}
    allowed = frozenset.intersection(*allows) - denied
    if len(allowed) * 8 < len(inherited):  # a short allow list: look its names up instead
        return {name: inherited[name] for name in sorted(allowed) if name in inherited}
    return {name: r for name, r in inherited.items() if name in allowed}


def mode_of(
    parents: Mapping[ScopeKey, ScopeKey | None],
    modes: Mapping[ScopeKey, tuple[Handle, PresentationMode]],
    default: PresentationMode,
    scope: ScopeKey | None,
) -> PresentationMode:
    """The presentation mode the nearest declaration gives a scope (the default if none does)."""
    while scope is not GLOBAL:
        declared = modes.get(scope)
        if declared is not None:
            return declared[1]
        scope = parents[scope]
    return default
