"""Public homes: each exported class and function names the package users import it from.

The package roots call `publish` last. It points `__module__` at the root, so reprs, tracebacks
and pickles name the import users write, and it first resolves the string annotations of what it
moves (in the defining module, then among every name of the package), so `typing.get_type_hints`
keeps working on them although their names are imported only for type checkers.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Final

from typing_extensions import TypeAliasType

__all__ = ["publish"]

_MOVABLE: Final = (type, types.FunctionType, TypeAliasType, functools._lru_cache_wrapper)
"""What `publish` gives a home: classes, functions, type aliases and cached functions."""


def publish(home: str, names: Iterable[str], namespace: Mapping[str, object]) -> None:
    """Give what `names` exports from `namespace` the home `home`, and the faces' names theirs.

    Called last by a package root. Each class, function or alias it exports that is defined
    inside it gets `__module__ = home`; then each public subpackage face the root imported gives
    the names only it exports its own name. A re-exported third-party object keeps its module.
    """
    prefix = home + "."
    modules = _modules(prefix, namespace)
    package = _package_names(modules, namespace)
    exported = set(names)
    for name in exported:
        _move(namespace[name], home, prefix, package)
    for face in _faces(modules):
        for name in getattr(face, "__all__", ()):
            if name not in exported:
                _move(getattr(face, name), face.__name__, prefix, package)


def _move(value: object, home: str, prefix: str, package: Mapping[str, object]) -> None:
    """Resolve `value`'s annotations, then point its `__module__` at `home`."""
    module = getattr(value, "__module__", None)
    if not isinstance(value, _MOVABLE) or not isinstance(module, str):
        return
    if not module.startswith(prefix):
        return
    if isinstance(value, type | types.FunctionType):
        _resolve(value, package)
    value.__module__ = home  # type: ignore[misc]  # a TypeAliasType allows it at runtime


def _modules(prefix: str, namespace: Mapping[str, object]) -> list[types.ModuleType]:
    """Every module of the package reachable from the root's names, public and private."""
    pending = [v for v in namespace.values() if isinstance(v, types.ModuleType)]
    found: dict[str, types.ModuleType] = {}
    while pending:
        module = pending.pop()
        if module.__name__ in found or not module.__name__.startswith(prefix):
            continue
        found[module.__name__] = module
        pending.extend(v for v in vars(module).values() if isinstance(v, types.ModuleType))
    return list(found.values())


def _faces(modules: list[types.ModuleType]) -> list[types.ModuleType]:
    """The public modules among `modules` (no part of their name private)."""
    return [m for m in modules if not any(part.startswith("_") for part in m.__name__.split("."))]


def _package_names(
    modules: list[types.ModuleType], namespace: Mapping[str, object]
) -> dict[str, object]:
    """Every name of every module of the package, then the root's own, to resolve annotations."""
    names: dict[str, object] = {}
    for module in modules:
        names.update((k, v) for k, v in vars(module).items() if not isinstance(v, types.ModuleType))
    names.update(namespace)
    return names


def _resolve(value: type | types.FunctionType, package: Mapping[str, object]) -> None:
    """Replace `value`'s own string annotations by what they name, where it can be found."""
    own = inspect.get_annotations(value)
    if not any(isinstance(v, str) for v in own.values()):
        return
    defining = inspect.getmodule(value)
    scope = {**package, **(vars(defining) if defining is not None else {})}
    try:
        hints = typing.get_type_hints(value, globalns=scope, include_extras=True)
    except Exception:  # one unresolvable name: resolve the others one by one
        as_class = isinstance(value, type)
        hints = {key: _resolve_one(key, v, scope, as_class=as_class) for key, v in own.items()}
    value.__annotations__ = {key: hints.get(key, v) for key, v in own.items()}


def _resolve_one(key: str, value: object, scope: dict[str, Any], *, as_class: bool) -> object:
    """One annotation resolved in `scope`, or left as written when it names what is not there."""
    holder: object = (
        type("_Annotation", (), {"__annotations__": {key: value}})
        if as_class
        else types.SimpleNamespace(__annotations__={key: value})
    )
    try:
        return typing.get_type_hints(holder, globalns=scope, include_extras=True)[key]
    except Exception:
        return value
