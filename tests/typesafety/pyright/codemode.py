"""Code Mode for users under pyright strict: own engines by shape, typed answers and listeners."""

from collections.abc import Awaitable, Callable, Mapping
from typing import Literal, assert_type

from toolfx.core import (
    CodeDispatchLog,
    CodeLimits,
    CodeProgram,
    ContentBlock,
    HostError,
    HostValue,
    Location,
    ProgramFinished,
    ProgramStep,
    TextBlock,
    ToolCodeDispatchRecord,
)
from toolfx.interpreters import SyncRuntime

Next = Callable[[], Awaitable[tuple[ContentBlock, ...]]]


class Echo:
    def begin(self) -> ProgramStep:
        return ProgramFinished("done")

    def answer_calls(self, answers: Mapping[int, HostValue | HostError]) -> ProgramStep:
        return ProgramFinished(len(answers))

    def answer_clock(self, seconds: float) -> ProgramStep:
        return ProgramFinished(seconds)

    def answer_sleep(self) -> ProgramStep:
        return ProgramFinished(None)

    def stop(self) -> None: ...

    def close(self) -> None: ...


class EchoEngine:
    limits = CodeLimits(tool_calls=10)

    def start(self, program: CodeProgram) -> Echo:
        return Echo()


class Unstoppable:
    def begin(self) -> ProgramStep:
        return ProgramFinished(None)


class UnstoppableEngine:
    limits = CodeLimits()

    def start(self, program: CodeProgram) -> Unstoppable:
        return Unstoppable()


async def shorten(log: CodeDispatchLog, next_content: Next) -> tuple[ContentBlock, ...]:
    assert_type(log.sub_call_id, str)
    assert_type(log.agent, str | None)
    return (TextBlock(f"{log.name}: {len(await next_content())} block(s)"),)


async def wrong(log: CodeDispatchLog, next_content: Next) -> list[str]:
    return ["no"]


SyncRuntime(code=EchoEngine())
SyncRuntime(code=UnstoppableEngine())  # pyright: ignore[reportArgumentType]
HostError("PermissionError", "denied")
HostError("KeyError", "x")  # pyright: ignore[reportArgumentType]
CodeLimits(seconds="5")  # pyright: ignore[reportArgumentType]
location = Location()
location.on_code_dispatch_log(shorten)
location.on_code_dispatch_log(wrong)  # pyright: ignore[reportArgumentType]
record = ToolCodeDispatchRecord("c1:code:1", "c1", "read", False, ())
assert_type(record.event, Literal["tool/code-dispatch"])
