"""Code Mode inside an agent framework: an ask a program's call makes is deferred, not denied.

pydantic-ai defers an ask no rule answers (the run ends with `DeferredToolRequests`); inside a
program that must end the program, never reach it as a `PermissionError` it could catch and
work around. Resumed with the approval, the program runs again and its asking call runs.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolfx.core import (
    RUN_CODE,
    Ask,
    Location,
    Output,
    PreToolDecision,
    ToolExecution,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.pydantic_ai import toolset


class X(TypedDict):
    x: int


class Nothing(TypedDict):
    pass


PROGRAM = """a = await double(x=1)
try:
    b = await note()
except PermissionError:
    b = "worked around"
    await double(x=99)
[a, b]
"""


def test_a_deferred_ask_inside_a_program_ends_it_and_the_approval_runs_it_again() -> None:
    ran: list[tuple[str, int]] = []

    def double(args: X, ctx: ToolRunContext) -> int:
        ran.append(("double", args["x"]))
        return args["x"] * 2

    def note(args: Nothing, ctx: ToolRunContext) -> str:
        ran.append(("note", 0))
        return "noted"

    location = Location()
    location.register(
        define_tool(
            name="double", description="Twice x.", parameters=X, output=Output(int), execute=double
        )
    )
    location.register(
        define_tool(
            name="note", description="Notes.", parameters=Nothing, output=Output(str), execute=note
        )
    )
    location.add_scope("agent")
    location.present_as("agent", "code")

    async def rule(execution: ToolExecution, next_decision: Any) -> PreToolDecision:
        return Ask("notes need a yes") if execution.name == "note" else await next_decision()

    location.on_pre_execute(rule, "agent")

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse([ToolCallPart(RUN_CODE, {"code": PROGRAM}, tool_call_id="p1")])
        return ModelResponse([TextPart("ok")])

    agent = Agent(
        FunctionModel(model),
        toolsets=[toolset(location, scope="agent")],
        output_type=[str, DeferredToolRequests],
    )
    asked = asyncio.run(agent.run("go"))
    assert isinstance(asked.output, DeferredToolRequests)
    assert ran == [("double", 1)]  # stopped at the ask: the workaround branch never ran
    resumed = asyncio.run(
        agent.run(
            message_history=asked.all_messages(),
            deferred_tool_results=DeferredToolResults(approvals={"p1": True}),
        )
    )
    assert resumed.output == "ok"
    assert ("double", 99) not in ran
    assert ran[-1] == ("note", 0)  # run again from its start, the ask answered
    returns = [
        part.content
        for message in resumed.all_messages()
        for part in getattr(message, "parts", [])
        if type(part).__name__ == "ToolReturnPart"
    ]
    assert returns == ['[2,"noted"]']
