"""One real Monty program through `run_code` under every built-in interpreter: the same value,
the same printed output and the same records under sync, anyio on asyncio and on trio, and the
deterministic interpreter (its sleeps virtual), with Monty's own workers running it."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import pytest

from tests.conformance.builtin import BUILTIN, Builtin, builtin_factory
from toolfx.core.codemode import RUN_CODE
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.records import SessionRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    ErrorCode,
    Output,
    TextBlock,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters import MontyEngine
from toolfx.testing import Host

PROGRAM = """\
import asyncio

first = await shout(text="hi")
both = await asyncio.gather(read(text="a"), read(text="b"))
try:
    await shout(text="secret")
    denied = None
except PermissionError as error:
    denied = str(error)
await asyncio.sleep(0.01)
print("done", first)
{"first": first, "both": both, "denied": denied}
"""


class Args(TypedDict):
    text: str


@dataclass(frozen=True, slots=True)
class Run:
    result: ToolExecutionResult
    records: tuple[str, ...]


def coder() -> Location:
    """`shout` (exclusive) and `read` (parallel-safe) in a scope presented as code; a guard
    denies the text `secret`."""
    location = Location()
    for name, safe in (("shout", False), ("read", True)):

        async def body(args: Args, ctx: ToolRunContext, name: str = name) -> str:
            await ctx.runtime.checkpoint()
            return f"{name}:{args['text']}"

        location.register(
            define_tool(
                name=name,
                description=f"{name.capitalize()} a text.",
                parameters=Args,
                output=Output(str),
                execute=body,
                is_concurrency_safe=(lambda args: True) if safe else None,
            )
        )

    def no_secrets(execution: ToolExecution) -> str | None:
        arguments = execution.arguments
        secret = isinstance(arguments, dict) and arguments.get("text") == "secret"
        return "secrets stay unsaid" if secret else None

    location.guard(no_secrets)
    location.add_scope("coder")
    location.present_as("coder", "code")
    return location


def run(interpreter: Builtin, folder: Path, program: str) -> Run:
    host = Host(lambda r: "unavailable", lambda e, w: None, lambda e: None, code=MontyEngine())
    records: list[SessionRecord] = []
    call = ToolCall("outer", RUN_CODE, {"code": program}, CancelSignal())
    description = execute(coder().catalog("coder"), call, records.append)
    result = builtin_factory(interpreter, folder)(host).run(description)
    assert isinstance(result, ToolExecutionSuccess | ToolExecutionFailure)
    wire = tuple(json.dumps(record.to_json(), sort_keys=True) for record in records)
    return Run(result, wire)


def test_the_same_program_gives_the_same_value_and_records_under_every_interpreter(
    tmp_path: Path,
) -> None:
    runs = {name: run(name, tmp_path, PROGRAM) for name in BUILTIN}
    first = runs["sync"]
    assert isinstance(first.result, ToolExecutionSuccess), first.result
    value = first.result.value
    assert isinstance(value, dict)
    assert (value["first"], value["both"]) == ("shout:hi", ["read:a", "read:b"])
    assert "secrets stay unsaid" in str(value["denied"])
    assert first.result.content[0] == TextBlock("done shout:hi\n")
    assert first.result.meta == {"calls": 4, "failed": 1}
    events = [json.loads(record)["event"] for record in first.records]
    assert Counter(events) == {"tool/call": 5, "tool/code-dispatch": 4, "tool/result": 1}
    for name, ran in runs.items():
        assert ran.result == first.result, name
        assert Counter(ran.records) == Counter(first.records), name


@pytest.mark.parametrize("interpreter", BUILTIN)
def test_a_program_the_stubs_reject_runs_nothing_under_any_interpreter(
    tmp_path: Path, interpreter: Builtin
) -> None:
    ran = run(interpreter, tmp_path, 'await shout(text="hi")\nawait read(text=3)\n')
    assert isinstance(ran.result, ToolExecutionFailure)
    assert ran.result.error.code is ErrorCode.INVALID_ARGS
    assert [json.loads(record)["event"] for record in ran.records] == ["tool/call", "tool/result"]
