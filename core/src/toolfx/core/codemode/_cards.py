"""How `run_code` presents itself: the program as code while it runs, then what it did.

The completed card reads the sub-call summary the transport attaches as the result's meta
(`{"calls": n, "failed": m}`), so a replay draws it from the log without running anything; a
result without one (a program stopped before it ended, a log edited by hand) gets no card of
its own and a UI falls back to the result's content.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from toolfx.core.tools import CodeCallCard, CodeResultCard, content_text

if TYPE_CHECKING:
    from toolfx.core.codemode._transport import RunCodeArgs
    from toolfx.core.json import FrozenJson
    from toolfx.core.tools import DurableResult

__all__ = ["program_card", "program_result_card"]


def program_card(args: RunCodeArgs) -> CodeCallCard:
    """The pending card of a `run_code` call: its program, as Python."""
    code = args["code"]
    lines = code.count("\n") + (bool(code) and not code.endswith("\n"))
    title = f"Run a program ({_counted(lines, 'line')})"
    return CodeCallCard(title=title, code=code, lang="python")


def program_result_card(args: RunCodeArgs, result: DurableResult) -> CodeResultCard | None:
    """The completed card: the program's tool calls and failures, with its result or error."""
    summary = _summary(result.meta)
    if summary is None:
        return None
    calls, failed = summary
    made = f"{_counted(calls, 'tool call')}, {failed} failed"
    if result.error is None:
        return CodeResultCard(calls, failed, made, content_text(result.content))
    after = f" after {made}" if calls else ""
    title = f"Failed ({result.error.code.value}){after}"
    return CodeResultCard(calls, failed, title, result.error.message)


def _summary(meta: FrozenJson) -> tuple[int, int] | None:
    """The calls and failures of a well-formed summary (counts, failures at most the calls)."""
    if not isinstance(meta, Mapping):
        return None
    calls, failed = meta.get("calls"), meta.get("failed")
    if type(calls) is not int or type(failed) is not int or not 0 <= failed <= calls:
        return None
    return calls, failed


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
