"""Code Mode under every interpreter: random programs over random tools, the same everywhere.

A random catalog holds tools that are parallel-safe or exclusive, and that answer or fail; a
guard denies any call whose text is `deny`. A random program makes calls and gathers (to known
and unknown tools, with valid and invalid arguments) and prints, catching every exception. Under
the sync interpreter, anyio on asyncio and on trio, and the deterministic interpreter, the
program gets the same value (what each call answers, worked out from the plan alone) and the
run writes the same records; every sub-call gets exactly one result and one record pair.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from tests.conformance.builtin import BUILTIN, Builtin, builtin_factory
from toolfx.core.codemode import RUN_CODE
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.records import SessionRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, CodeLimits
from toolfx.core.tools import (
    Output,
    ToolExecution,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.testing import Pause, ScriptedCode
from toolfx.testing import Host

TEXT = "the program"


class Args(TypedDict):
    text: str


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    parallel: bool
    fails: bool


@dataclass(frozen=True, slots=True)
class Call:
    tool: str
    text: str | int
    """An int is an invalid argument."""


@dataclass(frozen=True, slots=True)
class Gather:
    calls: tuple[Call, ...]


@dataclass(frozen=True, slots=True)
class Emit:
    text: str


Step = Call | Gather | Emit


@dataclass(frozen=True, slots=True)
class Plan:
    tools: tuple[Tool, ...]
    steps: tuple[Step, ...]
    parallel_calls: int


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    count = draw(st.integers(1, 4))
    tools = tuple(Tool(f"t{n}", draw(st.booleans()), draw(st.booleans())) for n in range(count))
    names = st.sampled_from([tool.name for tool in tools] + ["missing"])
    texts = st.sampled_from(["a", "b", "deny"]) | st.just(7)
    calls = st.builds(Call, names, texts)
    steps = st.one_of(
        calls,
        st.builds(Gather, st.lists(calls, max_size=5).map(tuple)),
        st.builds(Emit, st.sampled_from(["", "x", "line\n"])),
    )
    return Plan(tools, tuple(draw(st.lists(steps, max_size=6))), draw(st.integers(1, 3)))


def location_of(plan: Plan) -> Location:
    """The plan's tools in a scope presented as code, with a guard that denies `deny`."""
    location = Location()
    for tool in plan.tools:

        async def body(
            args: Args, ctx: ToolRunContext, tool: Tool = tool
        ) -> Result[str, ToolFailure]:
            await ctx.runtime.checkpoint()
            if tool.fails:
                return Failure(ToolFailure(f"{tool.name} cannot"))
            return Success(f"{tool.name}:{args['text']}")

        location.register(
            define_tool(
                name=tool.name,
                description=f"tool {tool.name}",
                parameters=Args,
                output=Output(str),
                execute=body,
                is_concurrency_safe=(lambda args: True) if tool.parallel else None,
            )
        )

    def deny(execution: ToolExecution) -> str | None:
        arguments = execution.arguments
        return "denied" if isinstance(arguments, dict) and arguments.get("text") == "deny" else None

    location.guard(deny)
    location.add_scope("coder")
    location.present_as("coder", "code")
    return location


def script_of(plan: Plan) -> Generator[Pause, object, object]:
    """The program: each step in turn, keeping what it received (an exception: its type)."""
    received: list[object] = []
    for step in plan.steps:
        match step:
            case Call(tool, text):
                moved = Pause.call(tool, text=text)
            case Gather(calls):
                moved = Pause.gather(*(Pause.call(c.tool, text=c.text) for c in calls))
            case Emit(text):
                moved = Pause.emit(text)
        try:
            received.append((yield moved))
        except Exception as error:
            received.append(type(error).__name__)
    return received


def answer(plan: Plan, call: Call) -> object:
    """What one call answers the program: a value, or the exception type it raises."""
    tools = {tool.name: tool for tool in plan.tools}
    if call.tool not in tools:
        return "NameError"
    if not isinstance(call.text, str):
        return "TypeError"
    if call.text == "deny":
        return "PermissionError"
    return "RuntimeError" if tools[call.tool].fails else f"{call.tool}:{call.text}"


def expected(plan: Plan) -> list[object]:
    """What the program returns, worked out from the plan alone."""
    received: list[object] = []
    for step in plan.steps:
        match step:
            case Call():
                received.append(answer(plan, step))
            case Gather(calls):
                answers = [answer(plan, call) for call in calls]
                raised = [a for a in answers if a in _EXCEPTIONS]
                unknown = "NameError" in raised  # raised before any call is handed out
                received.append("NameError" if unknown else raised[0] if raised else answers)
            case Emit():
                received.append(None)
    return received


_EXCEPTIONS = frozenset({"NameError", "TypeError", "PermissionError", "RuntimeError"})


@dataclass(frozen=True, slots=True)
class Run:
    result: ToolExecutionResult
    records: tuple[str, ...]
    """Each record's JSON, in order."""
    observed: tuple[str, ...]
    """The call id of each result the observers saw."""


def run(plan: Plan, interpreter: Builtin, folder: Path) -> Run:
    location = location_of(plan)
    observed: list[str] = []
    location.on_result(lambda execution, result: observed.append(execution.call_id))
    engine = ScriptedCode(
        {TEXT: lambda: script_of(plan)}, limits=CodeLimits(parallel_calls=plan.parallel_calls)
    )

    def report(error: BaseException, where: str) -> None:
        raise AssertionError(f"reported: {where}: {error!r}")

    host = Host(lambda request: "unavailable", report, lambda event: None, code=engine)
    records: list[SessionRecord] = []
    call = ToolCall("outer", RUN_CODE, {"code": TEXT}, CancelSignal())
    factory = builtin_factory(interpreter, folder)
    result = factory(host).run(execute(location.catalog("coder"), call, records.append))
    wire = tuple(json.dumps(record.to_json(), sort_keys=True) for record in records)
    return Run(result, wire, tuple(observed))


def calls_made(plan: Plan) -> int:
    """How many calls reach the host (each one a sub-dispatch): a call to a name that is not a
    tool raises in the program, and a gather holding one hands out none of its calls."""
    tools = {tool.name for tool in plan.tools}
    made = 0
    for step in plan.steps:
        calls = (
            step.calls if isinstance(step, Gather) else (step,) if isinstance(step, Call) else ()
        )
        if all(call.tool in tools for call in calls):
            made += len(calls)
    return made


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spills")


@given(plans())
def test_a_program_gets_the_same_value_and_records_under_every_interpreter(
    folder: Path, plan: Plan
) -> None:
    runs = {name: run(plan, name, folder) for name in BUILTIN}
    made = calls_made(plan)
    subs = [f"outer:code:{n}" for n in range(1, made + 1)]
    for name, ran in runs.items():
        assert isinstance(ran.result, ToolExecutionSuccess), (name, ran.result)
        assert ran.result.value == expected(plan), name
        assert Counter(ran.observed) == Counter([*subs, "outer"]), name  # one result each
        events = [json.loads(record) for record in ran.records]
        per_call = {
            sub: [e["event"] for e in events if e["callId"] == sub] for sub in [*subs, "outer"]
        }
        assert per_call == {
            **{sub: ["tool/call", "tool/code-dispatch"] for sub in subs},
            "outer": ["tool/call", "tool/result"],
        }, name
    first = runs[BUILTIN[0]]
    for name, ran in runs.items():
        assert ran.result == first.result, name
        assert Counter(ran.records) == Counter(first.records), name
        if not any(isinstance(step, Gather) for step in plan.steps):
            assert ran.records == first.records, name  # no two calls could overlap: one order
