"""The `run_code` tool: one program over a catalog's Code Mode tools, each call a sub-dispatch.

A catalog presented as `code` or `both` offers it, bound to that catalog's Code Mode tools; its
description carries their stubs. The program's last expression is the value (lossless JSON), what
it printed is shown with it, and the sub-call summary is the result's meta. A program the stubs
reject is INVALID_ARGS (nothing ran); an uncaught exception, a crashed worker and every limit are
typed failures whose details say which (the time limit is TOOL_TIMEOUT); a caller's cancellation
stops the program (ABORTED).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, TypedDict

from returns.result import Failure, Result, Success

from toolfx.core.codemode._cards import program_card, program_result_card
from toolfx.core.codemode._host import CodeHost
from toolfx.core.codemode._names import RUN_CODE
from toolfx.core.codemode._program import run_program
from toolfx.core.codemode._stubs import StubTool, code_stubs
from toolfx.core.json import JsonValue, snapshot_json
from toolfx.core.runtime import ProgramFailed, ProgramFinished
from toolfx.core.tools import (
    ErrorCode,
    Output,
    TextBlock,
    ToolDefinition,
    ToolFailure,
    ToolOptions,
    WithContent,
    define_tool,
    render_json,
)

if TYPE_CHECKING:
    from toolfx.core.tools import ToolRunContext

__all__ = ["RunCodeArgs", "code_transport"]


class RunCodeArgs(TypedDict):
    """The arguments of `run_code`: the program (its limits are the host's, not the model's)."""

    code: str


_GUIDE: Final = """\
Run one Python program (a sandboxed subset of Python: no files, no network, no environment).
Each tool below is an async function taking keyword arguments only: `await` it, or run several
at once with `asyncio.gather(...)`. The program's last expression is the result (JSON values:
dict, list, str, int, float, bool, None); what it prints is shown too. A failed tool call
raises, and the program may catch it: NameError (unknown tool), TypeError (invalid arguments),
PermissionError (denied), TimeoutError (timed out), RuntimeError (any other failure).

{fence}python
{stubs}
{fence}"""


_BACKTICKS: Final = re.compile("`+")


def code_transport(tools: Sequence[StubTool]) -> ToolDefinition[RunCodeArgs, JsonValue]:
    """The `run_code` definition over `tools` (a catalog's Code Mode tools)."""
    stubs = code_stubs(tools)

    async def run_code(
        args: RunCodeArgs, ctx: ToolRunContext
    ) -> Result[WithContent[JsonValue], ToolFailure]:
        if not isinstance(ctx, CodeHost):  # only the pipeline runs a tool body
            return Failure(
                ToolFailure.of(ErrorCode.UNEXPECTED_ERROR, "run_code runs only in the pipeline")
            )
        return _outcome(await run_program(ctx, ctx, args["code"], stubs))

    return define_tool(
        name=RUN_CODE,
        description=_GUIDE.format(stubs=stubs.text.rstrip(), fence=_fence(stubs.text)),
        parameters=RunCodeArgs,
        output=Output(JsonValue),
        execute=run_code,
        present_call=program_card,
        present_result=program_result_card,
        options=ToolOptions(codemode=False),
    )


def _fence(text: str) -> str:
    """A Markdown fence longer than any run of backticks in `text` (a tool's description may
    hold one), so the stubs stay one code block for the model."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def _outcome(end: ProgramFinished | ProgramFailed) -> Result[WithContent[JsonValue], ToolFailure]:
    if isinstance(end, ProgramFinished):
        value = snapshot_json(end.value)
        if not isinstance(value, Success):
            return Failure(
                ToolFailure.of(
                    ErrorCode.TOOL_ERROR,
                    f"The program's last expression is not a JSON value: {value.failure()}",
                    {"failure": "value"},
                )
            )
        frozen: JsonValue = value.unwrap()
        printed = (TextBlock(end.output),) if end.output else ()
        return Success(WithContent(frozen, (*printed, *render_json(None, frozen))))
    return Failure(_failure(end))


def _failure(end: ProgramFailed) -> ToolFailure:
    details: dict[str, JsonValue] = {"failure": end.failure}
    for key, value in (
        ("limit", end.limit),
        ("exception", end.exception),
        ("line", end.line),
        ("column", end.column),
    ):
        if value is not None:
            details[key] = value
    printed = f"\n\nIt printed:\n{end.output}" if end.output else ""
    where = "" if end.line is None else f" (line {end.line}, column {end.column or 0})"
    match end.failure:
        case "syntax" | "type":
            code = ErrorCode.INVALID_ARGS
            message = f"The program was not run: it does not check{where}:\n{end.message}"
        case "exception":
            code = ErrorCode.TOOL_ERROR
            message = f"The program raised {end.exception or 'an exception'}{where}:\n{end.message}"
        case "limit":
            code = ErrorCode.TOOL_TIMEOUT if end.limit == "time" else ErrorCode.TOOL_ERROR
            message = f"The program ran into its {end.limit} limit: {end.message}"
        case "crashed":
            code = ErrorCode.TOOL_ERROR
            message = f"The program's sandbox worker crashed: {end.message}"
        case "stopped" | "unavailable":
            code = ErrorCode.TOOL_ERROR
            message = end.message
    return ToolFailure.of(code, message + printed, snapshot_json(details).unwrap())
