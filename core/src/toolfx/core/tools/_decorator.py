"""`@tool`: a tool definition from a plain `def` or `async def`.

Bound methods, partials (whose fixed arguments are no properties and never overridden) and
callable instances are read through the `def` declaring them (see `_callables`). The name is the
function's; the description and each parameter's description come from its
docstring (Google, NumPy or reST); each parameter is a property of the arguments object (its
annotation read by `schema_of`'s rules, optional when it has a default, which is filled in before
the call); the output type is the return annotation, unwrapped from `async def`, `Result[T,
ToolFailure]` and `WithContent[T]`. A parameter annotated `ToolRunContext` (any name) receives the
run context, and `ToolRunContext[Deps]` declares dependencies checked before the body runs.
Everything that cannot work fails when the function is decorated, naming it and the parameter.
"""

from __future__ import annotations

import collections.abc
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, NotRequired, Protocol, TypeAlias, TypeVar, final, overload

from returns.result import Failure, Result
from typing_extensions import TypedDict

from toolfx.core.runtime import RemotePlacement
from toolfx.core.schema import SchemaDerivationError, schema_of
from toolfx.core.tools._callables import Callee, read_callable
from toolfx.core.tools._context import ToolRunContext
from toolfx.core.tools._definition import Output, ToolDefinition, ToolOptions
from toolfx.core.tools._deps import DepsCheck, deps_check
from toolfx.core.tools._docstrings import read_docstring
from toolfx.core.tools._failure import ErrorCode, ToolFailure
from toolfx.core.tools._naming import ToolDefinitionError, check_name
from toolfx.core.tools._output_limits import OutputLimits
from toolfx.core.tools._with_content import WithContent

__all__ = ["ToolArguments", "ToolDecorator", "tool"]

T = TypeVar("T")

ToolArguments: TypeAlias = Mapping[str, object]
"""The decoded arguments of a `@tool` definition: one entry per parameter the call gave."""

ParallelSafe: TypeAlias = bool | Callable[[ToolArguments], bool]
"""Whether calls may overlap their siblings: always, never, or as the arguments say."""


class ToolDecorator(Protocol):
    """What `tool(...)` with options gives: a decorator of a plain or async function."""

    @overload
    def __call__(
        self, fn: Callable[..., Awaitable[Result[WithContent[T], ToolFailure]]], /
    ) -> ToolDefinition[ToolArguments, T]: ...
    @overload
    def __call__(
        self, fn: Callable[..., Awaitable[Result[T, ToolFailure]]], /
    ) -> ToolDefinition[ToolArguments, T]: ...
    @overload
    def __call__(
        self, fn: Callable[..., Awaitable[WithContent[T]]], /
    ) -> ToolDefinition[ToolArguments, T]: ...
    @overload
    def __call__(self, fn: Callable[..., Awaitable[T]], /) -> ToolDefinition[ToolArguments, T]: ...
    @overload
    def __call__(
        self, fn: Callable[..., Result[WithContent[T], ToolFailure]], /
    ) -> ToolDefinition[ToolArguments, T]: ...
    @overload
    def __call__(
        self, fn: Callable[..., Result[T, ToolFailure]], /
    ) -> ToolDefinition[ToolArguments, T]: ...
    @overload
    def __call__(
        self, fn: Callable[..., WithContent[T]], /
    ) -> ToolDefinition[ToolArguments, T]: ...
    @overload
    def __call__(self, fn: Callable[..., T], /) -> ToolDefinition[ToolArguments, T]: ...


@overload
def tool(
    fn: Callable[..., Awaitable[Result[WithContent[T], ToolFailure]]], /
) -> ToolDefinition[ToolArguments, T]: ...
@overload
def tool(
    fn: Callable[..., Awaitable[Result[T, ToolFailure]]], /
) -> ToolDefinition[ToolArguments, T]: ...
@overload
def tool(fn: Callable[..., Awaitable[WithContent[T]]], /) -> ToolDefinition[ToolArguments, T]: ...
@overload
def tool(fn: Callable[..., Awaitable[T]], /) -> ToolDefinition[ToolArguments, T]: ...
@overload
def tool(
    fn: Callable[..., Result[WithContent[T], ToolFailure]], /
) -> ToolDefinition[ToolArguments, T]: ...
@overload
def tool(fn: Callable[..., Result[T, ToolFailure]], /) -> ToolDefinition[ToolArguments, T]: ...
@overload
def tool(fn: Callable[..., WithContent[T]], /) -> ToolDefinition[ToolArguments, T]: ...
@overload
def tool(fn: Callable[..., T], /) -> ToolDefinition[ToolArguments, T]: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    namespace: str | None = None,
    timeout: float | None = None,
    parallel_safe: ParallelSafe = False,
    codemode: bool = True,
    permission: str | None = None,
    idempotent: bool = False,
    blocking: bool = False,
    output_limits: OutputLimits | None = None,
    remote: RemotePlacement | None = None,
) -> ToolDecorator: ...
def tool(
    fn: Callable[..., object] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    namespace: str | None = None,
    timeout: float | None = None,
    parallel_safe: ParallelSafe = False,
    codemode: bool = True,
    permission: str | None = None,
    idempotent: bool = False,
    blocking: bool = False,
    output_limits: OutputLimits | None = None,
    remote: RemotePlacement | None = None,
) -> ToolDefinition[ToolArguments, Any] | ToolDecorator:
    """Make a tool definition of a plain or async function: `@tool` or `@tool(name=..., ...)`.

    `parallel_safe` becomes the definition's `is_concurrency_safe` (True: always; a function of
    the arguments: as it says); the other options are `define_tool`'s and `ToolOptions`'.
    """
    settings = _Settings(
        name,
        description,
        timeout,
        parallel_safe,
        ToolOptions(
            namespace=namespace, codemode=codemode, permission=permission, idempotent=idempotent
        ),
        blocking,
        output_limits,
        remote,
    )
    if fn is None:
        return _Decorator(settings)
    return _defined(fn, settings)


@final
@dataclass(frozen=True, slots=True)
class _Settings:
    """The keyword options of one `tool(...)`."""

    name: str | None
    description: str | None
    timeout: float | None
    parallel_safe: ParallelSafe
    options: ToolOptions
    blocking: bool
    output_limits: OutputLimits | None
    remote: RemotePlacement | None


@final
@dataclass(frozen=True, slots=True)
class _Decorator:
    """The decorator `tool(...)` gives: the options, waiting for the function."""

    settings: _Settings

    def __call__(self, fn: Callable[..., Any], /) -> ToolDefinition[ToolArguments, Any]:
        return _defined(fn, self.settings)


@final
@dataclass(frozen=True, slots=True)
class _Context:
    """Where a body wants its run context, and the check of its declared dependencies."""

    parameter: str
    check: DepsCheck | None
    declared: object


_EMPTY: Final = inspect.Parameter.empty
_TYPED_DICT: Final[Any] = TypedDict  # called with the parameters, known only at run time
_AWAITABLES: Final = (collections.abc.Awaitable, collections.abc.Coroutine)


def _defined(fn: Callable[..., Any], settings: _Settings) -> ToolDefinition[ToolArguments, Any]:
    callee = read_callable(fn, settings.name)
    label = callee.label
    name = settings.name if settings.name is not None else _function_name(callee.call, label)
    check_name(name, name, "name")
    hints = _hints(callee.declaration, name, label)
    docs = read_docstring(callee.docstring)
    description = settings.description if settings.description is not None else docs.description
    if not description.strip():
        raise ToolDefinitionError(
            name, "description", f"{label} has no docstring: give it one, or pass description="
        )
    context: _Context | None = None
    fields: dict[str, object] = {}
    defaults: dict[str, object] = {}
    positional: list[str] = []
    for parameter in callee.parameters:
        where = f"parameter {parameter.name!r} of {label}"
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            star = "*" if parameter.kind is parameter.VAR_POSITIONAL else "**"
            raise ToolDefinitionError(
                name,
                where,
                f"{star}{parameter.name} cannot be a property of a JSON object; "
                "declare each argument as a parameter of its own",
            )
        if parameter.name not in hints:
            raise ToolDefinitionError(name, where, "has no annotation; annotate its type")
        hint = hints[parameter.name]
        if parameter.kind is parameter.POSITIONAL_ONLY:
            positional.append(parameter.name)
        if _is_context(hint):
            context = _context(name, where, parameter, hint, context)
            continue
        if _mentions_context(hint):
            raise ToolDefinitionError(
                name,
                where,
                f"{hint!r}: the run context is given as a parameter annotated "
                "ToolRunContext (or ToolRunContext[Deps]) alone",
            )
        fields[parameter.name] = _field(
            name,
            where,
            hint,
            docs.parameters.get(parameter.name),
            optional=parameter.default is not _EMPTY,
        )
        if parameter.default is not _EMPTY:
            defaults[parameter.name] = parameter.default
    described = set(docs.parameters) - callee.declared
    if described:
        raise ToolDefinitionError(
            name,
            f"the docstring of {label}",
            f"describes {sorted(described)}, which the signature does not have",
        )
    if settings.blocking and callee.is_async:
        raise ToolDefinitionError(
            name, "blocking", f"{label} is an async def; blocking=True is for a plain def"
        )
    arguments = _TYPED_DICT(f"{name}_arguments", fields)
    output = _output(name, label, hints, callee.is_async)
    return ToolDefinition(
        name=name,
        description=description,
        parameters=schema_of(arguments),
        output=output,
        execute=_body(callee, context, _Call(frozenset(fields), defaults, tuple(positional))),
        timeout=settings.timeout,
        is_concurrency_safe=settings.parallel_safe,
        options=settings.options,
        blocking=settings.blocking,
        output_limits=settings.output_limits,
        remote=settings.remote,
    )


def _function_name(fn: Callable[..., Any], label: str) -> str:
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str) or name == "<lambda>":
        raise ToolDefinitionError(None, "name", f"{label} has no usable name: pass name=")
    return name


def _hints(declaration: Callable[..., Any], name: str, label: str) -> dict[str, Any]:
    """The evaluated annotations of the function declaring the tool."""
    try:
        return typing.get_type_hints(declaration, include_extras=True)
    except Exception as error:  # an unresolvable name, a bad forward reference, ...
        raise ToolDefinitionError(
            name,
            f"the annotations of {label}",
            f"cannot be resolved ({error}); annotations written as strings (as under `from "
            "__future__ import annotations`) are read in the module's namespace, so define "
            "the types they name at module level",
        ) from None


def _is_context(hint: object) -> bool:
    return hint is ToolRunContext or typing.get_origin(hint) is ToolRunContext


def _mentions_context(hint: object) -> bool:
    return any(_is_context(a) or _mentions_context(a) for a in typing.get_args(hint))


def _context(
    name: str, where: str, parameter: inspect.Parameter, hint: object, found: _Context | None
) -> _Context:
    if found is not None:
        raise ToolDefinitionError(
            name, where, f"a second run context (the first is {found.parameter!r})"
        )
    if parameter.default is not _EMPTY:
        raise ToolDefinitionError(name, where, "the run context is always given: drop its default")
    declared = typing.get_args(hint)
    if not declared:
        return _Context(parameter.name, None, object)
    check = deps_check(declared[0])
    if isinstance(check, str):
        raise ToolDefinitionError(name, where, f"its dependencies: {check}")
    return _Context(parameter.name, check, declared[0])


def _field(name: str, where: str, hint: Any, documented: str | None, *, optional: bool) -> object:
    try:
        schema_of(hint)  # derived now, so the error names this parameter
    except SchemaDerivationError as error:
        raise ToolDefinitionError(name, where, error.reason) from None
    described = typing.get_origin(hint) is typing.Annotated and any(
        isinstance(m, str) for m in typing.get_args(hint)[1:]
    )
    if documented is not None and not described:  # an Annotated description wins
        hint = typing.Annotated[hint, documented]
    return NotRequired[hint] if optional else hint


def _output(name: str, label: str, hints: Mapping[str, object], is_async: bool) -> Output[Any, Any]:
    where = f"the return annotation of {label}"
    if "return" not in hints:
        raise ToolDefinitionError(name, where, "is missing; annotate what the function returns")
    returned: Any = hints["return"]
    if not is_async and typing.get_origin(returned) in _AWAITABLES:
        returned = typing.get_args(returned)[-1]
    if typing.get_origin(returned) is Result:
        returned, error = typing.get_args(returned)
        if error is not ToolFailure:
            raise ToolDefinitionError(
                name, where, f"a Result fails with ToolFailure, not {error!r}"
            )
    if returned is WithContent:
        raise ToolDefinitionError(name, where, "WithContent needs its value type: WithContent[T]")
    if typing.get_origin(returned) is WithContent:
        returned = typing.get_args(returned)[0]
    try:
        return Output(returned)
    except SchemaDerivationError as error:
        raise ToolDefinitionError(name, where, error.reason) from None


@final
@dataclass(frozen=True, slots=True)
class _Call:
    """How a call's arguments reach the function: which it takes, their defaults, by position."""

    properties: frozenset[str]
    defaults: Mapping[str, object]
    positional: tuple[str, ...]


def _body(
    callee: Callee, context: _Context | None, shape: _Call
) -> Callable[[ToolArguments, ToolRunContext[Any]], object]:
    """The definition's body: the function called with its arguments, defaults and context."""
    fn = callee.call

    def arranged(
        args: ToolArguments, ctx: ToolRunContext[Any]
    ) -> tuple[list[object], dict[str, object]] | Failure[ToolFailure]:
        # Only properties pass: what a partial fixes is never overridden, even unchecked.
        given = {key: value for key, value in args.items() if key in shape.properties}
        values = {**shape.defaults, **given}
        if context is not None:
            if context.check is not None and not context.check(ctx.deps):
                return Failure(_missing_dependency(ctx, context.declared))
            values[context.parameter] = ctx
        return [values.pop(p) for p in shape.positional], values

    if callee.is_async:

        async def run_async(args: ToolArguments, ctx: ToolRunContext[Any]) -> object:
            call = arranged(args, ctx)
            if isinstance(call, Failure):
                return call
            return await fn(*call[0], **call[1])

        return run_async

    def run(args: ToolArguments, ctx: ToolRunContext[Any]) -> object:
        call = arranged(args, ctx)
        if isinstance(call, Failure):
            return call
        return fn(*call[0], **call[1])

    return run


def _missing_dependency(ctx: ToolRunContext[Any], declared: object) -> ToolFailure:
    wanted = getattr(declared, "__name__", None) or repr(declared)
    given = (
        "none were provided"
        if ctx.deps is None
        else f"the ones provided are a {type(ctx.deps).__name__}"
    )
    return ToolFailure.of(
        ErrorCode.MISSING_DEPENDENCY,
        f"Tool `{ctx.name}` needs dependencies of type {wanted}, and {given} "
        "(give them to its Location, Location(deps=...), or to the call, ToolCall(deps=...))",
    )
