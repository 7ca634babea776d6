"""Declared dependencies: the run-time check that what a call was given is of the declared type.

A body declares its dependencies with `ctx: ToolRunContext[Db]`. Classes (runtime-checkable
protocols included), `None`, unions and generic aliases (by their origin: `list[Db]` is checked
as a list) can be checked; `object` and `Any` accept anything. Any other form is refused when the
tool is defined.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, Union, get_args, get_origin

from typing_extensions import is_protocol, is_typeddict

__all__ = ["DepsCheck", "deps_check"]

DepsCheck = Callable[[object], bool]
"""Whether a provided value is of the declared dependency type."""


def deps_check(declared: object) -> DepsCheck | str:
    """The check for a declared dependency type, or why that type cannot be checked."""
    if declared is Any or declared is object:
        return _anything
    if declared is None or declared is type(None):
        return _is_none
    origin = get_origin(declared)
    if origin is typing.Annotated:
        return deps_check(get_args(declared)[0])
    if origin is Union or origin is types.UnionType:
        checks = [deps_check(member) for member in get_args(declared)]
        refused = [c for c in checks if isinstance(c, str)]
        if refused:
            return refused[0]
        members = [c for c in checks if not isinstance(c, str)]
        return lambda value: any(check(value) for check in members)
    if isinstance(origin, type):
        return deps_check(origin)
    if isinstance(declared, type):
        if is_typeddict(declared):
            return _is_dict
        if is_protocol(declared) and not getattr(declared, "_is_runtime_protocol", False):
            return (
                f"{declared.__name__} is a Protocol that is not @runtime_checkable, so a "
                "provided value cannot be checked against it"
            )
        kind = declared
        return lambda value: isinstance(value, kind)
    return f"{declared!r} is not a class, union or generic alias, so it cannot be checked"


def _anything(value: object) -> bool:
    return True


def _is_none(value: object) -> bool:
    return value is None


def _is_dict(value: object) -> bool:
    return isinstance(value, dict)
