"""Where tools live: Location-scoped persistent registries, scopes, hooks and compiled catalogs."""

from toolfx.core.registry._catalog import Catalog, ExecutionMode, HookPlan
from toolfx.core.registry._location import ChangeListener, Disposer, Location
from toolfx.core.registry._model import (
    GLOBAL,
    TRANSPORT_HANDLE,
    Handle,
    HookFunction,
    HookKind,
    PresentationMode,
    Registration,
    RegistryError,
    RegistryErrorKind,
    ScopeKey,
    ToolSchema,
    flat_name,
)
from toolfx.core.registry._registry import Registry

__all__ = [
    "GLOBAL",
    "TRANSPORT_HANDLE",
    "Catalog",
    "ChangeListener",
    "Disposer",
    "ExecutionMode",
    "Handle",
    "HookFunction",
    "HookKind",
    "HookPlan",
    "Location",
    "PresentationMode",
    "Registration",
    "Registry",
    "RegistryError",
    "RegistryErrorKind",
    "ScopeKey",
    "ToolSchema",
    "flat_name",
]
