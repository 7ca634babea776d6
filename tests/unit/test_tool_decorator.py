"""@tool: definitions from plain and async functions, their schemas, the calls they make, misuse."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from keyword import iskeyword
from typing import Annotated, Any, Literal, NotRequired, Protocol, TypedDict, runtime_checkable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from toolfx.core import (
    CancelSignal,
    ErrorCode,
    JsonValue,
    Location,
    OutputLimits,
    TextBlock,
    ToolCall,
    ToolDefinition,
    ToolDefinitionError,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    WithContent,
    call,
    described,
    execute,
    text,
    tool,
)
from toolfx.interpreters import DeterministicInterpreter, run_sync


@dataclass(frozen=True)
class Db:
    rows: int


@dataclass(frozen=True)
class Hits:
    total: int
    mode: str


class Point(TypedDict):
    x: int
    y: NotRequired[int]


class Unsupported:
    """A plain class: no schema can be derived for it."""


class Untestable(Protocol):
    def rows(self) -> int: ...


@runtime_checkable
class HasRows(Protocol):
    rows: int


def run(
    definition: ToolDefinition[Any, Any],
    arguments: object,
    *,
    deps: object = None,
    location: Location | None = None,
) -> ToolExecutionResult:
    place = location if location is not None else Location()
    _ = place.register(definition)
    name = definition.name
    if definition.options.namespace is not None:
        name = f"{definition.options.namespace}_{name}"
    request = ToolCall("call-1", name, arguments, CancelSignal(), deps=deps)
    return run_sync(execute(place.catalog(), request))


def schema(definition: ToolDefinition[Any, Any]) -> Any:
    return definition.parameters.json_schema


def value_of(result: ToolExecutionResult) -> object:
    assert isinstance(result, ToolExecutionSuccess), result
    return result.value


def failure_of(result: ToolExecutionResult) -> ToolFailure:
    assert isinstance(result, ToolExecutionFailure), result
    return result.error


# Docstrings --------------------------------------------------------------------------------------


def google(pattern: str, limit: int = 10) -> int:
    """Search the workspace.

    Every file is read once.

    Args:
        pattern: A regular
            expression.
        limit: At most this many hits.

    Returns:
        The number of hits.
    """
    return limit


def numpy(pattern: str, limit: int = 10) -> int:
    """Search the workspace.

    Every file is read once.

    Parameters
    ----------
    pattern : str
        A regular
        expression.
    limit : int, optional
        At most this many hits.

    Returns
    -------
    int
        The number of hits.
    """
    return limit


def rest(pattern: str, limit: int = 10) -> int:
    """Search the workspace.

    Every file is read once.

    :param pattern: A regular
        expression.
    :param limit: At most this many hits.
    :returns: The number of hits.
    """
    return limit


@pytest.mark.parametrize("function", [google, numpy, rest], ids=["google", "numpy", "rest"])
def test_every_docstring_style_gives_the_description_and_the_parameters(function: Any) -> None:
    definition = tool(function)
    assert definition.name == function.__name__
    assert definition.description == "Search the workspace.\n\nEvery file is read once."
    properties = schema(definition)["properties"]
    assert properties["pattern"]["description"] == "A regular expression."
    assert properties["limit"]["description"] == "At most this many hits."


def test_an_annotated_description_wins_over_the_docstring() -> None:
    @tool
    def search(pattern: Annotated[str, "From the annotation"], limit: int) -> int:
        """Search.

        Args:
            pattern: From the docstring.
            limit: The limit.
        """
        return limit

    properties = schema(search)["properties"]
    assert properties["pattern"]["description"] == "From the annotation"
    assert properties["limit"]["description"] == "The limit."


def test_a_docstring_describing_a_parameter_the_function_lacks_is_refused() -> None:
    def search(pattern: str) -> int:
        """Search.

        Args:
            patern: A typo.
        """
        return 0

    with pytest.raises(ToolDefinitionError, match=r"docstring of function .*search.*\['patern'\]"):
        tool(search)


def test_attribute_entries_of_a_docstring_are_not_parameters() -> None:
    @tool
    def search(pattern: str) -> int:
        """Search.

        Args:
            pattern: The pattern.

        Attributes:
            cache: Not a parameter.
        """
        return 0

    assert list(schema(search)["properties"]) == ["pattern"]


def test_description_option_replaces_the_docstring_and_allows_none() -> None:
    @tool(description="Given here")
    def bare(x: int) -> int:
        return x

    assert bare.description == "Given here"


def test_a_function_without_docstring_or_description_is_refused() -> None:
    def bare(x: int) -> int:
        return x

    with pytest.raises(ToolDefinitionError, match=r"description: function .*bare has no docstring"):
        tool(bare)


# Parameters, defaults and the call --------------------------------------------------------------


def test_defaults_make_properties_optional_and_are_filled_in_before_the_call() -> None:
    seen: list[tuple[object, ...]] = []

    @tool
    def search(first: int, second: str = "s", /, third: bool = False, *, fourth: int = 4) -> int:
        """Search."""
        seen.append((first, second, third, fourth))
        return first

    declared = schema(search)
    assert declared["required"] == ["first"]
    assert list(declared["properties"]) == ["first", "second", "third", "fourth"]
    assert value_of(run(search, {"first": 1})) == 1
    assert value_of(run(search, {"first": 2, "third": True, "fourth": 9})) == 2
    assert seen == [(1, "s", False, 4), (2, "s", True, 9)]


def test_optional_values_and_collections_decode_into_their_declared_types() -> None:
    @tool
    def shapes(
        points: list[Point], mode: Literal["a", "b"] = "a", tags: tuple[str, ...] = ()
    ) -> JsonValue:
        """Shapes."""
        return {"xs": [p["x"] for p in points], "mode": mode, "tags": list(tags)}

    result = run(shapes, {"points": [{"x": 1, "y": 2}], "tags": ["t"]})
    assert value_of(result) == {"xs": [1], "mode": "a", "tags": ["t"]}


def test_invalid_arguments_fail_naming_the_parameter() -> None:
    @tool
    def search(pattern: str, limit: int = 10) -> int:
        """Search."""
        return limit

    failure = failure_of(run(search, {"pattern": "p", "limit": "many", "extra": 1}))
    assert failure.code is ErrorCode.INVALID_ARGS
    assert "/limit" in failure.message
    assert "extra" in failure.message


def test_async_bodies_run_under_every_interpreter() -> None:
    @tool
    async def later(pattern: str, ctx: ToolRunContext) -> Hits:
        """Search later."""
        await ctx.runtime.checkpoint()  # a suspension point, no time spent
        return Hits(len(pattern), "async")

    assert value_of(run(later, {"pattern": "abc"})) == {"total": 3, "mode": "async"}
    location = Location()
    _ = location.register(later)
    request = ToolCall("c", "later", {"pattern": "ab"}, CancelSignal())
    result = DeterministicInterpreter(seed=3).run(execute(location.catalog(), request))
    assert value_of(result) == {"total": 2, "mode": "async"}


def test_a_decorated_tool_is_called_typed_with_call() -> None:
    @tool
    def size(path: str) -> Hits:
        """Size."""
        return Hits(len(path), "typed")

    location = Location()
    _ = location.register(size)
    outcome = run_sync(described(call(location.catalog(), size, call_id="c")({"path": "abcd"})))
    assert outcome == Success(Hits(4, "typed"))


# Outputs ------------------------------------------------------------------------------------------


def test_string_output_is_the_text_the_model_sees() -> None:
    @tool
    def greet(name: str) -> str:
        """Greet."""
        return f"hi {name}"

    result = run(greet, {"name": "ada"})
    assert isinstance(result, ToolExecutionSuccess)
    assert result.content == (TextBlock("hi ada"),)


def test_dict_typed_dict_and_none_outputs_are_checked() -> None:
    @tool
    def mapping(x: int) -> dict[str, JsonValue]:
        """A mapping."""
        return {"x": x}

    @tool
    def point(x: int) -> Point:
        """A point."""
        return {"x": x, "y": x}

    @tool
    def nothing(x: int) -> None:
        """Nothing."""

    @tool
    def wrong(x: int) -> Point:
        """Wrong."""
        return {"x": "no"}  # type: ignore[typeddict-item]

    assert value_of(run(mapping, {"x": 1})) == {"x": 1}
    assert value_of(run(point, {"x": 2})) == {"x": 2, "y": 2}
    assert value_of(run(nothing, {"x": 3})) is None
    assert failure_of(run(wrong, {"x": 4})).code is ErrorCode.INVALID_TOOL_OUTPUT


def test_result_and_with_content_are_unwrapped_from_the_output_type() -> None:
    @tool
    async def shown(x: int) -> Result[WithContent[int], ToolFailure]:
        """Shown."""
        if x < 0:
            return Failure(ToolFailure("negative"))
        return Success(WithContent(x, text(f"{x} shown")))

    assert shown.output.type is int
    result = run(shown, {"x": 2})
    assert isinstance(result, ToolExecutionSuccess)
    assert (result.value, result.content) == (2, (TextBlock("2 shown"),))
    assert failure_of(run(shown, {"x": -1})).message == "negative"


def test_a_plain_def_annotated_awaitable_is_unwrapped() -> None:
    async def compute(x: int) -> int:
        return x * 2

    @tool
    def deferred(x: int) -> Awaitable[int]:
        """Deferred."""
        return compute(x)

    assert deferred.output.type is int
    assert value_of(run(deferred, {"x": 4})) == 8


# Context and dependencies -------------------------------------------------------------------------


def test_the_context_reaches_a_parameter_of_any_name_and_stays_out_of_the_schema() -> None:
    @tool
    def whoami(context: ToolRunContext, suffix: str = "") -> str:
        """Who am I."""
        return context.call_id + suffix

    assert list(schema(whoami)["properties"]) == ["suffix"]
    assert value_of(run(whoami, {})) == "call-1"


@tool
def rows(table: str, ctx: ToolRunContext[Db]) -> int:
    """Rows of a table."""
    return ctx.deps.rows + len(table)


def test_dependencies_come_from_the_location() -> None:
    assert value_of(run(rows, {"table": "ab"}, location=Location(deps=Db(10)))) == 12


def test_a_calls_own_dependencies_win_over_the_locations() -> None:
    result = run(rows, {"table": "ab"}, deps=Db(100), location=Location(deps=Db(10)))
    assert value_of(result) == 102


def test_missing_dependencies_are_a_typed_failure_naming_the_type() -> None:
    failure = failure_of(run(rows, {"table": "ab"}))
    assert failure.code is ErrorCode.MISSING_DEPENDENCY
    assert "needs dependencies of type Db, and none were provided" in failure.message


def test_dependencies_of_another_type_are_a_typed_failure() -> None:
    failure = failure_of(run(rows, {"table": "ab"}, deps="a string"))
    assert failure.code is ErrorCode.MISSING_DEPENDENCY
    assert "the ones provided are a str" in failure.message


def test_the_body_does_not_run_without_its_dependencies() -> None:
    ran: list[int] = []

    @tool
    async def later(ctx: ToolRunContext[Db]) -> int:
        """Later."""
        ran.append(1)
        return ctx.deps.rows

    assert failure_of(run(later, {})).code is ErrorCode.MISSING_DEPENDENCY
    assert ran == []


def test_unions_optional_and_runtime_protocols_are_checked() -> None:
    @tool
    def maybe(ctx: ToolRunContext[Db | None]) -> int:
        """Maybe."""
        return -1 if ctx.deps is None else ctx.deps.rows

    @tool
    def shaped(ctx: ToolRunContext[HasRows]) -> int:
        """Shaped."""
        return ctx.deps.rows

    @tool
    def listed(ctx: ToolRunContext[list[Db]]) -> int:
        """Listed."""
        return len(ctx.deps)

    assert value_of(run(maybe, {})) == -1
    assert value_of(run(maybe, {}, deps=Db(3))) == 3
    assert value_of(run(shaped, {}, deps=Db(4))) == 4
    assert failure_of(run(shaped, {}, deps=3)).code is ErrorCode.MISSING_DEPENDENCY
    assert value_of(run(listed, {}, deps=[Db(1)])) == 1
    assert failure_of(run(listed, {}, deps=(Db(1),))).code is ErrorCode.MISSING_DEPENDENCY


def test_an_undeclared_context_sees_whatever_was_provided() -> None:
    @tool
    def raw(ctx: ToolRunContext) -> str:
        """Raw."""
        return repr(ctx.deps)

    assert value_of(run(raw, {})) == "None"
    assert value_of(run(raw, {}, deps=Db(1))) == "Db(rows=1)"


# Options ------------------------------------------------------------------------------------------


def test_options_reach_the_definition() -> None:
    limits = OutputLimits(lines=10)

    @tool(
        name="count_rows",
        namespace="db",
        timeout=5,
        codemode=False,
        permission="read",
        blocking=True,
        output_limits=limits,
    )
    def count(table: str) -> int:
        """Count."""
        return len(table)

    assert count.name == "count_rows"
    assert (count.options.namespace, count.options.codemode) == ("db", False)
    assert count.options.permission == "read"
    assert (count.timeout, count.blocking, count.output_limits) == (5, True, limits)
    assert value_of(run(count, {"table": "abc"})) == 3


def test_parallel_safe_becomes_the_scheduling_classifier() -> None:
    @tool(parallel_safe=True)
    def always(x: int) -> int:
        """Always."""
        return x

    @tool(parallel_safe=lambda args: args["x"] == 1)
    def sometimes(x: int) -> int:
        """Sometimes."""
        return x

    @tool
    def never(x: int) -> int:
        """Never."""
        return x

    location = Location()
    for definition in (always, sometimes, never):
        _ = location.register(definition)
    modes = [
        location.execution_mode("always", {"x": 2}),
        location.execution_mode("sometimes", {"x": 1}),
        location.execution_mode("sometimes", {"x": 2}),
        location.execution_mode("never", {"x": 1}),
    ]
    assert modes == ["parallel", "parallel", "exclusive", "exclusive"]


class Shouter:
    """Shout a text."""

    def __call__(self, text: str, times: int = 1) -> str:
        return text.upper() * times


def test_callables_without_a_name_are_tools_once_named() -> None:
    shout = tool(name="shout")(Shouter())
    assert shout.description == "Shout a text."
    assert value_of(run(shout, {"text": "a", "times": 2})) == "AA"
    twice = tool(name="twice")(functools.partial(Shouter(), times=2))
    assert twice.description == "Shout a text."
    assert list(schema(twice)["properties"]) == ["text"]
    assert value_of(run(twice, {"text": "b"})) == "BB"
    with pytest.raises(ToolDefinitionError, match=r"name: .*Shouter.* has no usable name"):
        tool(Shouter())


# Wrapped callables: partials, methods, callable instances ----------------------------------------


def transfer(amount: int, account: str, note: str = "") -> str:
    """Transfer money from an account.

    Args:
        amount: How much.
        account: Whose money.
        note: A note.
    """
    return f"moved {amount} from {account}{note}"


def test_arguments_a_partial_fixes_are_no_properties_and_are_never_overridden() -> None:
    by_keyword = tool(name="transfer")(functools.partial(transfer, account="alice"))
    by_position = tool(name="transfer")(functools.partial(transfer, 5, "alice"))
    assert by_keyword.description == "Transfer money from an account."
    assert schema(by_keyword)["properties"] == {
        "amount": {"type": "integer", "description": "How much."},
        "note": {"type": "string", "description": "A note."},
    }
    assert list(schema(by_position)["properties"]) == ["note"]
    assert value_of(run(by_keyword, {"amount": 5})) == "moved 5 from alice"
    assert value_of(run(by_position, {"note": "!"})) == "moved 5 from alice!"
    refused = failure_of(run(by_keyword, {"amount": 5, "account": "bob"}))
    assert refused.code is ErrorCode.INVALID_ARGS
    assert "account" in refused.message
    # even a body called with no validation in front of it keeps what the partial fixed
    unchecked = {"amount": 5, "account": "bob"}
    assert by_keyword.execute(unchecked, None) == "moved 5 from alice"  # type: ignore[arg-type]


class Partial(functools.partial[str]):
    """A partial subclass: Python does not flatten it into the partial it wraps."""


@pytest.mark.parametrize(
    "wrapped",
    [
        functools.partial(functools.partial(transfer, account="alice"), 5),
        Partial(Partial(transfer, 5), account="alice"),
        functools.partial(Partial(transfer, account="alice"), 5),
    ],
    ids=["flattened", "subclassed", "mixed"],
)
def test_nested_partials_fix_every_level(wrapped: Any) -> None:
    nested = tool(name="nested")(wrapped)
    assert list(schema(nested)["properties"]) == ["note"]
    assert nested.description == "Transfer money from an account."
    assert value_of(run(nested, {"note": "."})) == "moved 5 from alice."


def test_a_docstring_is_checked_against_the_wrapped_function() -> None:
    def typo(amount: int, account: str) -> str:
        """Transfer.

        Args:
            amount: How much.
            acount: A typo.
        """
        return account

    with pytest.raises(ToolDefinitionError, match=r"docstring of partial of function .*typo"):
        tool(name="typo")(functools.partial(typo, account="alice"))


class Account:
    """An account that can be debited."""

    def __init__(self, owner: str) -> None:
        self.owner = owner

    def debit(self, amount: int, note: str = "") -> str:
        """Debit the account.

        Args:
            amount: How much.
            note: A note.
        """
        return f"{self.owner} paid {amount}{note}"

    debit_five = functools.partialmethod(debit, 5)

    async def __call__(self, amount: int) -> str:
        """Pay from the account, later.

        Args:
            amount: How much.
        """
        return f"{self.owner} paid {amount} later"

    @staticmethod
    def fee(amount: int) -> int:
        """The fee of an amount."""
        return amount // 10

    @classmethod
    def bank(cls, code: str) -> str:
        """The bank of a code."""
        return f"{cls.__name__} {code}"


def test_a_bound_methods_instance_is_given_and_no_property() -> None:
    debit = tool(Account("ada").debit)
    assert (debit.name, debit.description) == ("debit", "Debit the account.")
    assert list(schema(debit)["properties"]) == ["amount", "note"]
    assert value_of(run(debit, {"amount": 3})) == "ada paid 3"
    five = tool(name="debit_five")(Account("bo").debit_five)
    assert list(schema(five)["properties"]) == ["note"]
    assert value_of(run(five, {"note": "!"})) == "bo paid 5!"
    bank = tool(Account.bank)
    assert list(schema(bank)["properties"]) == ["code"]
    assert value_of(run(bank, {"code": "x"})) == "Account x"


def test_staticmethods_are_tools_bare_or_taken_from_their_class() -> None:
    for fee in (tool(Account.fee), tool(vars(Account)["fee"])):
        assert (fee.name, fee.description) == ("fee", "The fee of an amount.")
        assert value_of(run(fee, {"amount": 30})) == 3


def test_a_callable_instance_is_read_through_its_call_method() -> None:
    pay = tool(name="pay")(Account("cy"))
    assert pay.description == "Pay from the account, later."
    assert schema(pay)["properties"] == {"amount": {"type": "integer", "description": "How much."}}
    assert pay.output.type is str
    assert value_of(run(pay, {"amount": 2})) == "cy paid 2 later"
    with pytest.raises(ToolDefinitionError, match=r"blocking: callable Account is an async def"):
        tool(name="pay", blocking=True)(Account("cy"))


@functools.cache
def cached_fee(amount: int) -> int:
    """The fee of an amount, remembered.

    Args:
        amount: How much.
    """
    return amount // 10


class Logged:
    """A class-based decorator: its instances stand for the function they wrap."""

    def __init__(self, wrapped: Callable[..., int]) -> None:
        self.calls = 0
        functools.update_wrapper(self, wrapped)

    def __call__(self, *args: object, **kwargs: object) -> int:
        self.calls += 1
        wrapped: Callable[..., int] = self.__wrapped__  # type: ignore[attr-defined]
        return wrapped(*args, **kwargs)


@Logged
def logged_fee(amount: int, /) -> int:
    """The fee of an amount, logged."""
    return amount // 10


def test_wrappers_of_a_function_are_read_through_it() -> None:
    cached = tool(cached_fee)
    assert (cached.name, cached.description) == ("cached_fee", "The fee of an amount, remembered.")
    assert schema(cached)["properties"] == {
        "amount": {"type": "integer", "description": "How much."}
    }
    assert value_of(run(cached, {"amount": 50})) == 5
    logged = tool(logged_fee)
    assert (logged.name, logged.description) == ("logged_fee", "The fee of an amount, logged.")
    assert value_of(run(logged, {"amount": 70})) == 7
    assert logged_fee.calls == 1


class Unannotated:
    def __call__(self, amount) -> int:  # type: ignore[no-untyped-def]
        """Unannotated."""
        return 0


def generates(n: int) -> Iterator[str]:
    """Yields, so returns no one value."""
    yield "a"


async def generates_later(n: int) -> AsyncIterator[str]:
    """Yields later."""
    yield "a"


@dataclass(frozen=True)
class Report:
    """A report."""

    title: str


@pytest.mark.parametrize(
    ("wrapped", "message"),
    [
        (Report, r"^tool: decorates a function, not the class Report; a class can be"),
        (functools.partial(Report, title="t"), r"^tool: decorates a function, not the class"),
        (Account.debit, r"function Account.debit: is a method taken from its class .*'self'"),
        (
            functools.partial(Account.debit, amount=1),
            r"partial of function Account.debit: is a method taken from its class",
        ),
        (Account.debit_five, r"partialmethod of function Account.debit: is a method taken"),
        (vars(Account)["bank"], r"not a classmethod object, .* decorate it as Cls.name"),
        (vars(Account)["debit_five"], r"not a partialmethod object, .* as instance.name"),
        (Unannotated(), r"parameter 'amount' of callable Unannotated: has no annotation"),
        (generates, r"function generates: is a generator \(it yields\)"),
        (generates_later, r"function generates_later: is a generator"),
        (lambda x: x, r"tool 'named': function .*<lambda>: is a lambda, which cannot annotate"),
        (len, r"^tool: len is not written in Python"),
        (
            functools.partial(transfer, nobody=1),  # type: ignore[call-arg]
            r"partial of function transfer: has no usable signature",
        ),
    ],
    ids=[
        "class",
        "partial-of-class",
        "unbound-method",
        "partial-of-unbound-method",
        "unbound-partialmethod",
        "classmethod-object",
        "partialmethod-object",
        "callable-instance",
        "generator",
        "async-generator",
        "lambda",
        "builtin",
        "partial-that-does-not-fit",
    ],
)
def test_what_is_no_tool_is_refused_saying_what_it_is(wrapped: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        tool(name="named", description="Given.")(wrapped)


def test_a_method_decorated_in_its_class_body_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match=r"Inside.bad: is a method taken from its class"):

        class Inside:
            @tool
            def bad(self, x: int) -> int:
                """Bad."""
                return x


# Misuse -------------------------------------------------------------------------------------------


def no_annotation(x, y: int) -> int:  # type: ignore[no-untyped-def]
    """No annotation."""
    return y


def unsupported(x: Unsupported) -> int:
    """Unsupported."""
    return 0


def context_default(ctx: ToolRunContext = None) -> int:  # type: ignore[assignment]
    """Context with a default."""
    return 0


def two_contexts(a: ToolRunContext, b: ToolRunContext) -> int:
    """Two contexts."""
    return 0


def context_in_union(ctx: ToolRunContext | None) -> int:
    """Context in a union."""
    return 0


def star_args(*items: int) -> int:
    """Star args."""
    return 0


def star_kwargs(**items: int) -> int:
    """Star kwargs."""
    return 0


def no_return(x: int):  # type: ignore[no-untyped-def]
    """No return annotation."""
    return x


def other_failure(x: int) -> Result[int, str]:
    """Another failure type."""
    return Success(x)


def bare_with_content(x: int) -> WithContent:  # type: ignore[type-arg]
    """Bare WithContent."""
    return WithContent(x, ())


def unsupported_output(x: int) -> Unsupported:
    """Unsupported output."""
    return Unsupported()


def unresolvable(x: Missing) -> int:  # type: ignore[name-defined]  # noqa: F821
    """Unresolvable annotation."""
    return 0


def unresolvable_local() -> Any:
    @dataclass(frozen=True)
    class Local:
        x: int

    def local(x: Local) -> int:  # a string annotation: Local is not in the module's namespace
        """Names a local class."""
        return x.x

    return local


def unchecked_deps(ctx: ToolRunContext[Untestable]) -> int:
    """Dependencies that cannot be checked."""
    return 0


async def blocking_async(x: int) -> int:
    """Blocking async."""
    return x


@pytest.mark.parametrize(
    ("function", "options", "message"),
    [
        (no_annotation, {}, r"parameter 'x' of function no_annotation: has no annotation"),
        (unsupported, {}, r"parameter 'x' of function unsupported: .*Unsupported"),
        (context_default, {}, r"parameter 'ctx' .*drop its default"),
        (two_contexts, {}, r"parameter 'b' .*second run context \(the first is 'a'\)"),
        (context_in_union, {}, r"parameter 'ctx' .*ToolRunContext .* alone"),
        (star_args, {}, r"parameter 'items' .*\*items cannot be a property"),
        (star_kwargs, {}, r"parameter 'items' .*\*\*items cannot be a property"),
        (no_return, {}, r"return annotation of function no_return: is missing"),
        (other_failure, {}, r"return annotation .*fails with ToolFailure, not <class 'str'>"),
        (bare_with_content, {}, r"return annotation .*WithContent\[T\]"),
        (unsupported_output, {}, r"return annotation of function unsupported_output: "),
        (unresolvable, {}, r"annotations of function unresolvable: cannot be resolved"),
        (unresolvable_local(), {}, r"'Local' is not defined.*as under `from __future__ import"),
        (unchecked_deps, {}, r"parameter 'ctx' .*Untestable is a Protocol that is not"),
        (blocking_async, {"blocking": True}, r"blocking: function blocking_async is an async"),
        (google, {"name": "has space"}, r"name: 'has space' must match"),
        (google, {"namespace": "b ad"}, r"options\.namespace"),
        (google, {"timeout": -1}, r"timeout: must be a positive"),
    ],
)
def test_misuse_fails_at_decoration_naming_the_function_and_parameter(
    function: Any, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        tool(**options)(function)


def test_a_lambda_is_refused_for_what_it_is_before_its_missing_name() -> None:
    with pytest.raises(ToolDefinitionError, match=r"^function .*<lambda>: is a lambda, which"):
        tool(description="d")(lambda x: x)


def test_something_not_callable_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="decorates a function, not 3"):
        tool(3)  # type: ignore[call-overload]


# Laws ---------------------------------------------------------------------------------------------

_TYPES: Any = st.sampled_from([int, str, bool, list[int], Point])
_SAMPLES: dict[object, object] = {
    int: 7,
    str: "s",
    bool: True,
    list[int]: [1],
    Point: {"x": 1, "y": 2},
}
_DEFAULTS: dict[object, object] = {
    int: 0,
    str: "",
    bool: False,
    list[int]: [],
    Point: {"x": 0, "y": 0},
}
_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda n: not iskeyword(n))


@st.composite
def signatures(draw: st.DrawFn) -> list[tuple[str, object, bool]]:
    names = draw(st.lists(_NAMES, unique=True, max_size=6))
    return [(name, draw(_TYPES), draw(st.booleans())) for name in names]


def echo_tool(spec: list[tuple[str, object, bool]]) -> ToolDefinition[Mapping[str, object], Any]:
    """A tool whose body gives back the keyword arguments it was called with."""
    return tool(echo_function(spec))


def echo_function(spec: list[tuple[str, object, bool]]) -> Callable[..., JsonValue]:
    """A function of the keyword parameters `spec` lists, giving back what it was called with."""

    def echo(**given: object) -> JsonValue:
        """Echo."""
        return dict(given)  # type: ignore[arg-type]

    parameters = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=kind,
            default=_DEFAULTS[kind] if optional else inspect.Parameter.empty,
        )
        for name, kind, optional in spec
    ]
    echo.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    echo.__annotations__ = {name: kind for name, kind, _ in spec} | {"return": JsonValue}
    return echo


@given(signatures())
def test_the_required_properties_are_the_parameters_without_defaults(
    spec: list[tuple[str, object, bool]],
) -> None:
    declared = schema(echo_tool(spec))
    assert set(declared.get("required", [])) == {name for name, _, optional in spec if not optional}
    assert list(declared["properties"]) == [name for name, _, _ in spec]


@given(signatures(), st.data())
def test_the_body_receives_the_given_arguments_and_the_defaults_of_the_rest(
    spec: list[tuple[str, object, bool]], data: st.DataObject
) -> None:
    given_names = {
        name for name, _, optional in spec if not optional or data.draw(st.booleans(), name)
    }
    arguments = {name: _SAMPLES[kind] for name, kind, _ in spec if name in given_names}
    expected = {
        name: _SAMPLES[kind] if name in given_names else _DEFAULTS[kind] for name, kind, _ in spec
    }
    assert value_of(run(echo_tool(spec), arguments)) == expected


@given(signatures(), st.data())
def test_what_a_partial_fixes_is_never_a_property_nor_overridden(
    spec: list[tuple[str, object, bool]], data: st.DataObject
) -> None:
    fixed = {name: _SAMPLES[kind] for name, kind, _ in spec if data.draw(st.booleans(), name)}
    definition = tool(name="echo")(functools.partial(echo_function(spec), **fixed))
    assert list(schema(definition)["properties"]) == [n for n, _, _ in spec if n not in fixed]
    every = {name: _DEFAULTS[kind] for name, kind, _ in spec}  # fixed names too, other values
    assert definition.execute(every, None) == every | fixed  # type: ignore[arg-type]
