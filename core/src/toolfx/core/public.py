"""Public homes: each exported class and function names the package users import it from."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Iterable, Mapping

__all__ = ["publish"]


def publish(home: str, names: Iterable[str], namespace: Mapping[str, object]) -> None:
    """Set `__module__` to `home` on the classes and functions `names` exports from `namespace`.

    Only objects defined inside `home`'s own package move (a re-exported third-party type keeps
    its module). A class's own annotations are resolved in its defining module first, so
    `typing.get_type_hints` keeps working once its module name points at the public face.
    """
    prefix = home + "."
    for name in names:
        value = namespace[name]
        if not isinstance(value, type | types.FunctionType):
            continue
        if not value.__module__.startswith(prefix):
            continue
        if isinstance(value, type):
            _resolve_own_annotations(value)
        value.__module__ = home


def _resolve_own_annotations(cls: type) -> None:
    """Replace a class's own string annotations by the types they name, where they resolve."""
    own = inspect.get_annotations(cls)
    if not own:
        return
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except (NameError, TypeError):  # names imported only for type checkers: left as written
        return
    cls.__annotations__ = {key: hints.get(key, value) for key, value in own.items()}
