"""What a callable given to `@tool` stands for: the `def` declaring it and what a call gives it.

A function is its own declaration. A bound method is declared by its function, its `self` (or
`cls`) already given. A partial (nested ones too) is declared by the function it wraps, and the
arguments it fixes, by position or by keyword, are given for good: a call never sees them. A
callable instance is declared by its class's `__call__` (named by the class, described by
`__call__`'s docstring, else the class's), unless it wraps a function (`functools.cache`, a
class-based decorator: its `__wrapped__`), which declares it; a staticmethod object by its
function. Whatever cannot
be a tool (a class, a generator, a method taken from its class, a classmethod or partialmethod
object, a builtin, a lambda, which cannot annotate) is refused here, saying what to do instead.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, final

from toolfx.core.tools._naming import ToolDefinitionError

__all__ = ["Callee", "read_callable"]


@final
@dataclass(frozen=True, slots=True)
class Callee:
    """A callable read for a tool: what to call, the `def` declaring it, what a call gives."""

    call: Callable[..., Any]
    """What the tool's body calls (a partial keeps the arguments it fixes)."""
    declaration: Callable[..., Any]
    """The Python function whose annotations describe the call."""
    label: str
    """How errors name it: `function f`, `method Svc.m`, `partial of function f`, `callable Svc`."""
    docstring: str | None
    parameters: tuple[inspect.Parameter, ...]
    """What a call gives, in order: the parameters bound or fixed by a partial left out."""
    declared: frozenset[str]
    """Every parameter of the declaration, the fixed ones too: those a docstring may describe."""
    is_async: bool


@final
@dataclass(frozen=True, slots=True)
class _Declared:
    """The function declaring a callable, its label and docstring, the keywords partials fix."""

    function: Callable[..., Any]
    label: str
    docstring: str | None
    fixed: frozenset[str] = frozenset()


def read_callable(fn: object, tool: str | None) -> Callee:
    """What `fn` stands for as a tool, or a ToolDefinitionError (naming `tool`) saying why not.

    What is no function at all (a class, a builtin, something not callable) is refused without
    the tool's name: the error is about the object.
    """
    if not callable(fn):
        raise ToolDefinitionError(None, "tool", _not_callable(fn))
    call: Callable[..., Any] = fn
    declared = _declaration(call)
    declaration, label = declared.function, declared.label
    try:
        given = inspect.signature(call).parameters.values()
        own = tuple(inspect.signature(declaration).parameters)
    except (ValueError, TypeError) as error:  # a partial whose arguments do not fit, ...
        raise ToolDefinitionError(
            tool,
            label,
            f"has no usable signature ({error}): a partial's arguments must fit its function",
        ) from None
    parameters = tuple(p for p in given if p.name not in declared.fixed)
    if _is_unbound(declaration, parameters, own):
        raise ToolDefinitionError(
            tool,
            label,
            f"is a method taken from its class (its first parameter {own[0]!r} is the "
            "instance): decorate the bound method, tool(instance.method), or make it a "
            "@staticmethod",
        )
    if declaration.__name__ == "<lambda>" and not declaration.__annotations__:
        raise ToolDefinitionError(
            tool,
            label,
            "is a lambda, which cannot annotate its parameters or its return: "
            "define the tool with def",
        )
    if inspect.isgeneratorfunction(declaration) or inspect.isasyncgenfunction(declaration):
        raise ToolDefinitionError(
            tool,
            label,
            "is a generator (it yields), and a tool returns one value: "
            "collect what it yields and return that (a list, say)",
        )
    return Callee(
        call=call,
        declaration=declaration,
        label=label,
        docstring=declared.docstring,
        parameters=parameters,
        declared=frozenset(own),
        is_async=inspect.iscoroutinefunction(declaration),
    )


def _not_callable(fn: object) -> str:
    if isinstance(fn, classmethod):
        return (
            "decorates a function, not a classmethod object, which is only callable through "
            "its class: decorate it as Cls.name once the class is defined"
        )
    if isinstance(fn, functools.partialmethod):
        return (
            "decorates a function, not a partialmethod object, which is only callable bound to "
            "an instance: decorate it as instance.name"
        )
    return f"decorates a function, not {fn!r}"


def _declaration(fn: Callable[..., Any]) -> _Declared:
    """The function declaring `fn`, how to name it, its docstring, what partials fix."""
    if isinstance(fn, functools.partial):
        inner = _declaration(fn.func)
        fixed = inner.fixed | frozenset(fn.keywords)
        return _Declared(inner.function, f"partial of {inner.label}", inner.docstring, fixed)
    partial_method = _partial_method(fn)
    if partial_method is not None:
        inner = _declaration(partial_method.func)
        fixed = inner.fixed | frozenset(partial_method.keywords)
        return _Declared(inner.function, f"partialmethod of {inner.label}", inner.docstring, fixed)
    if isinstance(fn, staticmethod):
        return _declaration(fn.__func__)
    if inspect.ismethod(fn):
        inner = _declaration(fn.__func__)
        label = f"method {fn.__qualname__}"
        return _Declared(inner.function, label, inspect.getdoc(fn), inner.fixed)
    if inspect.isfunction(fn):
        return _Declared(fn, f"function {fn.__qualname__}", inspect.getdoc(fn))
    if inspect.isclass(fn):
        raise ToolDefinitionError(
            None,
            "tool",
            f"decorates a function, not the class {fn.__qualname__}; a class can be what a "
            "tool takes or returns: write a function that takes or returns it",
        )
    wrapped = getattr(fn, "__wrapped__", None)  # functools.cache, a class-based decorator, ...
    if callable(wrapped):  # inspect.signature follows it too
        return _declaration(wrapped)
    call: object = type(fn).__call__  # fn is callable, so its class has one
    if inspect.isbuiltin(fn) or not inspect.isfunction(call):
        shown = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        raise ToolDefinitionError(
            None,
            "tool",
            f"{shown} is not written in Python, so it has no annotations to read: "
            "call it from an annotated def and decorate that",
        )
    own = call.__doc__  # getdoc would inherit `type.__call__`'s ("Call self as a function.")
    docstring = inspect.cleandoc(own) if own else inspect.getdoc(type(fn))
    return _Declared(call, f"callable {type(fn).__qualname__}", docstring)


def _partial_method(fn: object) -> functools.partialmethod[Any] | None:
    """The partialmethod a function taken from a class through one stands for, if it is one."""
    for attribute in ("__partialmethod__", "_partialmethod"):  # Python 3.13 renamed it
        found = getattr(fn, attribute, None)
        if isinstance(found, functools.partialmethod):
            return found
    return None


def _is_unbound(
    declaration: Callable[..., Any],
    parameters: tuple[inspect.Parameter, ...],
    own: tuple[str, ...],
) -> bool:
    """Whether a method defined in a class is called without its instance (`self` not given).

    A function defined in a class body whose first parameter, still to be given, is `self` or
    `cls` (a staticmethod's first parameter is an argument like any other).
    """
    in_class = "." in declaration.__qualname__.rsplit(".<locals>.", 1)[-1]
    if not (in_class and parameters and own) or parameters[0].name != own[0]:
        return False
    first = parameters[0]
    positional = first.kind in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD)
    return positional and first.name in ("self", "cls")
