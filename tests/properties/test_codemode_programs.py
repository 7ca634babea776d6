"""Laws of Code Mode over random programs in Monty's workers, under every interpreter.

A program is drawn from a small grammar over random tools (names that need mapping included):
calls with literal or computed arguments, `asyncio.gather` of several, `try`/`except` around
calls that may fail, arithmetic on results, a final list of every variable. The same program
gives the same value, content and records under sync, anyio (asyncio, trio) and the deterministic
interpreter; the value is the one a model evaluation of the program gives; every sub-call gets
exactly one result (a `tool/call` then one `tool/code-dispatch` with its id), numbered from 1 in
the program's order, and the program's answers count equals the calls it made.

Monty type-checks each program (a few milliseconds) and it runs four times: the examples are a
fifth of the profile's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypedDict, final

from hypothesis import event, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result

from tests.codemode_support import INTERPRETERS, runs_everywhere, sub_call_ledger
from toolfx.core import (
    Catalog,
    ErrorCode,
    Location,
    Output,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    define_tool,
)
from toolfx.core.codemode import StubTool, code_stubs

MODULUS: Final = 1_000
"""Every argument and computed value is taken modulo this: values stay small."""

RAISED: Final = {
    ErrorCode.DENIED: "PermissionError",
    ErrorCode.TOOL_TIMEOUT: "TimeoutError",
    ErrorCode.TOOL_ERROR: "RuntimeError",
    ErrorCode.INVALID_ARGS: "TypeError",
    ErrorCode.BLOCKED: "RuntimeError",
}
"""The exception each failure a body may return raises in the program (the spec's table)."""

NAMES: Final = (
    "get",
    "print",
    "class",
    "list-items",
    "sum",
    "asyncio",
    "_hidden",
    "9lives",
    "Tool",
    "x",
    "time",
    "json",
)
"""Tool names, several not usable as the program's identifiers (mapped by the stubs), some the
names of modules the sandbox has (a program that does not import them calls the tool)."""


class XArgs(TypedDict):
    x: int


@final
@dataclass(frozen=True, slots=True)
class Tool:
    """A random tool: `x * factor + offset`, or a failure with `fails`."""

    name: str
    factor: int
    offset: int
    fails: ErrorCode | None
    parallel: bool


class ModelRaised(Exception):
    """A call of the model evaluation failed with this exception name."""

    def __init__(self, exception: str) -> None:
        super().__init__(exception)
        self.exception = exception


# --- expressions ---------------------------------------------------------------------------


@final
@dataclass(frozen=True, slots=True)
class Lit:
    value: int


@final
@dataclass(frozen=True, slots=True)
class Var:
    index: int


@final
@dataclass(frozen=True, slots=True)
class Bin:
    op: str
    left: Expr
    right: Expr


Expr = Lit | Var | Bin


def render(expr: Expr) -> str:
    match expr:
        case Lit(value=value):
            return str(value)
        case Var(index=index):
            return f"v{index}"
        case Bin(op=op, left=left, right=right):
            return f"({render(left)} {op} {render(right)})"


def evaluate(expr: Expr, env: list[int]) -> int:
    match expr:
        case Lit(value=value):
            return value
        case Var(index=index):
            return env[index]
        case Bin(op=op, left=left, right=right):
            a, b = evaluate(left, env), evaluate(right, env)
            return a + b if op == "+" else a - b if op == "-" else a * b


# --- statements: each defines the next variable ---------------------------------------------


@final
@dataclass(frozen=True, slots=True)
class Call:
    tool: int
    argument: Expr


@final
@dataclass(frozen=True, slots=True)
class Gather:
    calls: tuple[Call, ...]


@final
@dataclass(frozen=True, slots=True)
class Guarded:
    inner: Call | Gather
    catches: str
    fallback: int


@final
@dataclass(frozen=True, slots=True)
class Compute:
    expr: Expr


Statement = Call | Gather | Guarded | Compute


@final
@dataclass(frozen=True, slots=True)
class Program:
    tools: tuple[Tool, ...]
    statements: tuple[Statement, ...]

    def text(self) -> str:
        """The program in Python, calling each tool by its stub identifier."""
        stubs = code_stubs([StubTool(tool.name, "", {}) for tool in self.tools])
        identifier = {name: ident for ident, name in stubs.functions.items()}
        names = [identifier[tool.name] for tool in self.tools]

        def call(node: Call) -> str:
            return f"{names[node.tool]}(x=({render(node.argument)}) % {MODULUS})"

        def value(node: Call | Gather) -> str:
            if isinstance(node, Call):
                return f"await {call(node)}"
            return f"sum(await asyncio.gather({', '.join(call(c) for c in node.calls)}))"

        lines = ["import asyncio"]
        for index, statement in enumerate(self.statements):
            target = f"v{index}"
            match statement:
                case Call() | Gather():
                    lines.append(f"{target} = {value(statement)}")
                case Guarded(inner=inner, catches=catches, fallback=fallback):
                    lines += [
                        "try:",
                        f"    {target} = {value(inner)}",
                        f"except {catches}:",
                        f"    {target} = {fallback}",
                    ]
                case Compute(expr=expr):
                    lines.append(f"{target} = ({render(expr)}) % {MODULUS}")
        lines.append(f"[{', '.join(f'v{i}' for i in range(len(self.statements)))}]")
        return "\n".join(lines)


@final
@dataclass(frozen=True, slots=True)
class Expected:
    """What the model evaluation says: the value or the uncaught exception, and the calls."""

    value: list[int] | None
    raised: str | None
    calls: int
    failed: int


def expected(program: Program) -> Expected:
    """Evaluate `program` the way Python would, counting the calls."""
    env: list[int] = []
    counts = [0, 0]

    def call(node: Call) -> int:
        tool = program.tools[node.tool]
        x = evaluate(node.argument, env) % MODULUS
        counts[0] += 1
        if tool.fails is not None:
            counts[1] += 1
            return 0  # every gathered call runs before the gather raises (see `value`)
        return x * tool.factor + tool.offset

    def value(node: Call | Gather) -> int:
        calls = (node,) if isinstance(node, Call) else node.calls
        results = [call(c) for c in calls]
        for node_call in calls:  # a gather raises the first failure in the program's order
            fails = program.tools[node_call.tool].fails
            if fails is not None:
                raise ModelRaised(RAISED[fails])
        return sum(results)

    for statement in program.statements:
        try:
            match statement:
                case Call() | Gather():
                    env.append(value(statement))
                case Guarded(inner=inner, catches=catches, fallback=fallback):
                    try:
                        env.append(value(inner))
                    except ModelRaised as raised:
                        if catches not in {raised.exception, "Exception"}:
                            raise
                        env.append(fallback)
                case Compute(expr=expr):
                    env.append(evaluate(expr, env) % MODULUS)
        except ModelRaised as raised:
            return Expected(None, raised.exception, *counts)
    return Expected(env, None, *counts)


# --- strategies ------------------------------------------------------------------------------

_TOOLS = st.lists(
    st.builds(
        Tool,
        name=st.sampled_from(NAMES),
        factor=st.integers(-3, 3),
        offset=st.integers(-10, 10),
        fails=st.sampled_from([None] * 2 * len(RAISED) + sorted(RAISED)),  # a third fail
        parallel=st.booleans(),
    ),
    min_size=1,
    max_size=4,
    unique_by=lambda tool: tool.name,
)


def _expr(defined: int) -> st.SearchStrategy[Expr]:
    leaves: st.SearchStrategy[Expr] = st.builds(Lit, st.integers(-50, 50))
    if defined:
        leaves = leaves | st.builds(Var, st.integers(0, defined - 1))
    return st.recursive(
        leaves,
        lambda inner: st.builds(Bin, st.sampled_from("+-*"), inner, inner),
        max_leaves=4,
    )


@st.composite
def programs(draw: st.DrawFn) -> Program:
    tools = tuple(draw(_TOOLS))
    statements: list[Statement] = []
    for defined in range(draw(st.integers(1, 6))):
        call = st.builds(Call, st.integers(0, len(tools) - 1), _expr(defined))
        inner = call | st.builds(Gather, st.lists(call, min_size=2, max_size=4).map(tuple))
        kind = draw(st.sampled_from(["call", "guarded", "guarded", "compute"]))
        if kind == "call":
            statements.append(draw(inner))
        elif kind == "compute":
            statements.append(Compute(draw(_expr(defined))))
        else:
            catches = draw(st.sampled_from([*sorted(set(RAISED.values())), "Exception"]))
            statements.append(Guarded(draw(inner), catches, draw(st.integers(-5, 5))))
    return Program(tools, tuple(statements))


def catalog_of(tools: tuple[Tool, ...]) -> Callable[[], Catalog]:
    def fresh() -> Catalog:
        location = Location()
        for tool in tools:
            location.register(
                define_tool(
                    name=tool.name,
                    description=f"x times {tool.factor} plus {tool.offset}",
                    parameters=XArgs,
                    output=Output(int),
                    execute=_body(tool),
                    is_concurrency_safe=(lambda args: True) if tool.parallel else None,
                )
            )
        location.add_scope("agent")
        location.present_as("agent", "code")
        return location.catalog("agent")

    return fresh


def _body(tool: Tool) -> Callable[[XArgs, ToolRunContext], Result[int, ToolFailure] | int]:
    def body(args: XArgs, ctx: ToolRunContext) -> Result[int, ToolFailure] | int:
        if tool.fails is not None:
            return Failure(ToolFailure.of(tool.fails, f"{tool.name} refuses {args['x']}"))
        return args["x"] * tool.factor + tool.offset

    return body


@settings(max_examples=max(10, settings().max_examples // 5))
@given(programs())
def test_random_programs_agree_everywhere_and_every_sub_call_settles_once(
    program: Program,
) -> None:
    text = program.text()
    runs = runs_everywhere(catalog_of(program.tools), text)
    ran = runs["sync"]
    model = expected(program)
    event("finished" if model.value is not None else f"raised {model.raised}")
    assert ran.defects == ()
    if model.value is not None:
        assert isinstance(ran.result, ToolExecutionSuccess), (text, ran.result)
        assert ran.result.value == model.value, text
    else:
        assert isinstance(ran.result, ToolExecutionFailure), (text, ran.result)
        details = ran.result.error.info.details
        assert isinstance(details, dict)
        assert details["failure"] == "exception", ran.result
        assert details["exception"] == model.raised, ran.result
    assert ran.result.meta == {"calls": model.calls, "failed": model.failed}
    for name in INTERPRETERS:  # each run on its own: records in the order it scheduled them
        alone = frozenset(tool.name for tool in program.tools if not tool.parallel)
        ledger = sub_call_ledger(runs[name], exclusive=alone)
        opened = [call_id for event, call_id in ledger if event == "tool/call"]
        assert sorted(opened, key=lambda i: int(i.rsplit(":", 1)[1])) == [
            f"c1:code:{n}" for n in range(1, model.calls + 1)
        ]
